/// One virtual event a store asked for: "renew subscription X at T". `epoch` lets a store
/// invalidate the events it scheduled before a state change without searching the queue.
public struct ScheduledEvent: Sendable, Hashable, Codable {
  public var atMs: Int64
  public var sequence: Int64
  /// Which store handles it ("apple"; "google" and "amazon" later).
  public var store: String
  public var kind: String
  /// The store's key, e.g. an original transaction id.
  public var subject: String
  public var epoch: Int
}

/// The store-neutral core that every simulated store works against: the virtual clock, the
/// queue of virtual events, id counters and the outbox of notifications to deliver.
struct SimCore: Sendable {
  var nowMs: Int64
  private(set) var events: [ScheduledEvent] = []
  private var nextSequence: Int64 = 1
  private var counters: [String: Int64] = [:]
  var outbox: [OutgoingNotification] = []

  init(nowMs: Int64) { self.nowMs = nowMs }

  mutating func schedule(at atMs: Int64, store: String, kind: String, subject: String, epoch: Int) {
    events.append(
      ScheduledEvent(atMs: atMs, sequence: nextSequence, store: store, kind: kind, subject: subject, epoch: epoch))
    nextSequence += 1
  }

  /// The earliest event due at or before `limitMs` (ties in scheduling order), removed.
  mutating func popDue(upTo limitMs: Int64) -> ScheduledEvent? {
    guard
      let index = events.indices.filter({ events[$0].atMs <= limitMs }).min(by: {
        (events[$0].atMs, events[$0].sequence) < (events[$1].atMs, events[$1].sequence)
      })
    else { return nil }
    return events.remove(at: index)
  }

  /// The next value of a named counter, starting at `start`.
  mutating func nextId(_ name: String, start: Int64) -> Int64 {
    let value = counters[name] ?? start
    counters[name] = value + 1
    return value
  }

  mutating func takeOutbox() -> [OutgoingNotification] {
    defer { outbox = [] }
    return outbox
  }
}

/// What one virtual event did, as `advance` reports it.
public struct FiredEvent: Sendable, Hashable, Codable {
  public var atMs: Int64
  public var store: String
  public var kind: String
  public var subject: String
  /// A short account: "renewed as 2000000100000004", "billing failed, grace until …".
  public var outcome: String
}
