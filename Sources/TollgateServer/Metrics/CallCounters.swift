import TollgateContract

/// Calls counted by method and outcome, with a latency histogram per method: the one place a call
/// is recorded (`record`), whoever answers it. It is not thread-safe on purpose: the fast port
/// gives each event-loop thread its own (plain memory, written only by that thread, read by it
/// when a scrape asks through its mailbox, so the hot path pays no atomic and shares no cache
/// line), and the slower doors keep one behind a lock (`DoorCallRecorder`). A scrape sums the
/// snapshots (`CallSnapshot`).
public final class CallCounters {
  /// The histogram's upper bounds, in nanoseconds (`le` of `tollgate_request_duration_seconds`):
  /// 2.5 µs to 1 s, so that the fast port's microseconds resolve.
  public static let bucketBoundsNs: [UInt64] = [
    2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 10_000_000,
    100_000_000, 1_000_000_000,
  ]
  /// Method slots: each `EntitlementsMethod` by its index, and one for a method index nobody knows.
  public static let methodCount = EntitlementsMethod.allCases.count + 1
  public static let unknownMethod = methodCount - 1
  static let outcomeCount = CallOutcome.allCases.count
  /// The buckets of one method: one per bound, and +Inf.
  static let bucketCount = bucketBoundsNs.count + 1

  // Layout of `slots`: calls[method][outcome], buckets[method][bucket], sumNs[method], then the
  // authentication failures and the limited submissions.
  static let bucketsOffset = methodCount * outcomeCount
  static let sumOffset = bucketsOffset + methodCount * bucketCount
  static let authenticationFailuresSlot = sumOffset + methodCount
  static let submissionsLimitedSlot = authenticationFailuresSlot + 1
  static let slotCount = submissionsLimitedSlot + 1

  private let slots: UnsafeMutablePointer<UInt64>

  public init() {
    slots = .allocate(capacity: Self.slotCount)
    slots.initialize(repeating: 0, count: Self.slotCount)
  }

  deinit { slots.deallocate() }

  /// The slot of a method index off the wire (`unknownMethod` for one nobody knows).
  @inline(__always)
  public static func slot(methodIndex: UInt32) -> Int {
    methodIndex < UInt32(unknownMethod) ? Int(methodIndex) : unknownMethod
  }

  /// Records `count` calls of method slot `method` that ended with `outcome`, each having taken
  /// `nanoseconds` (the fast port's IsSubscriber calls share their wake-up's time). An
  /// Authenticate that failed, and any call refused as unauthenticated, is an authentication
  /// failure; a SubmitPurchase answered RESOURCE_EXHAUSTED is a submission limited.
  @inline(__always)
  public func record(method: Int, outcome: CallOutcome, count: Int = 1, nanoseconds: UInt64) {
    let count = UInt64(truncatingIfNeeded: count)
    slots[method &* Self.outcomeCount &+ outcome.rawValue] &+= count
    slots[Self.bucketsOffset &+ method &* Self.bucketCount &+ Self.bucket(nanoseconds)] &+= count
    slots[Self.sumOffset &+ method] &+= nanoseconds &* count
    if outcome == .unauthenticated
      || (outcome != .ok && method == Int(EntitlementsMethod.authenticate.rawValue))
    {
      slots[Self.authenticationFailuresSlot] &+= count
    } else if outcome == .resourceExhausted, method == Int(EntitlementsMethod.submitPurchase.rawValue) {
      slots[Self.submissionsLimitedSlot] &+= count
    }
  }

  /// The bucket of a duration: the first bound it does not pass (`bucketBoundsNs`), written out
  /// as constants so the hot path reads no array.
  @inline(__always)
  static func bucket(_ nanoseconds: UInt64) -> Int {
    switch nanoseconds {
    case ...2_500: 0
    case ...5_000: 1
    case ...10_000: 2
    case ...25_000: 3
    case ...50_000: 4
    case ...100_000: 5
    case ...250_000: 6
    case ...500_000: 7
    case ...1_000_000: 8
    case ...2_500_000: 9
    case ...10_000_000: 10
    case ...100_000_000: 11
    case ...1_000_000_000: 12
    default: 13
    }
  }

  /// A copy of everything counted so far.
  public func snapshot() -> CallSnapshot {
    CallSnapshot(slots: Array(UnsafeBufferPointer(start: slots, count: Self.slotCount)))
  }
}

/// What one or more `CallCounters` had counted, as values: what a scrape sums and renders.
public struct CallSnapshot: Sendable, Equatable {
  var slots: [UInt64]

  init(slots: [UInt64]) {
    self.slots = slots
  }

  public static var empty: CallSnapshot { CallSnapshot(slots: Array(repeating: 0, count: CallCounters.slotCount)) }

  /// Adds `other`'s counts to these.
  public mutating func add(_ other: CallSnapshot) {
    for index in slots.indices { slots[index] &+= other.slots[index] }
  }

  /// Calls of method slot `method` that ended with `outcome`.
  public func calls(method: Int, outcome: CallOutcome) -> UInt64 {
    slots[method * CallCounters.outcomeCount + outcome.rawValue]
  }

  /// Calls of method slot `method`, whatever their outcome (the histogram's count).
  public func calls(method: Int) -> UInt64 {
    CallOutcome.allCases.reduce(0) { $0 + calls(method: method, outcome: $1) }
  }

  /// The histogram of method slot `method`: calls in each bucket of `CallCounters.bucketBoundsNs`
  /// and then +Inf (not cumulative).
  public func buckets(method: Int) -> ArraySlice<UInt64> {
    let start = CallCounters.bucketsOffset + method * CallCounters.bucketCount
    return slots[start..<start + CallCounters.bucketCount]
  }

  /// The time the calls of method slot `method` took, together, in nanoseconds.
  public func sumNanoseconds(method: Int) -> UInt64 { slots[CallCounters.sumOffset + method] }

  public var authenticationFailures: UInt64 { slots[CallCounters.authenticationFailuresSlot] }
  public var submissionsLimited: UInt64 { slots[CallCounters.submissionsLimitedSlot] }

  /// The label of method slot `method`: the method's name, or `unknown`.
  public static func methodName(_ method: Int) -> String {
    guard method < CallCounters.unknownMethod, let known = EntitlementsMethod(rawValue: UInt32(method)) else {
      return "unknown"
    }
    return known.name
  }
}
