import Synchronization

/// Signals that the change feed may have moved: what lets a follower read the feed soon after a
/// commit without reading it all the time. Coalesced: one waiting signal stands for any number of
/// commits, and a follower that reads the feed after taking a signal has everything committed
/// before that signal. A follower iterates it (`for await _ in signals { read the feed }`); the
/// iteration ends when its task is cancelled, and the producer then stops.
///
/// Where the signals come from is the storage's business (`EntitlementStorage.changeSignals`):
/// SQLite looks at `PRAGMA data_version` every interval on a thread of its own; a server
/// database yields one per `LISTEN`/`NOTIFY` notification that its writers send in the writing
/// transaction; a storage with neither signals every interval (`every(_:)`).
///
/// Alongside the signals, the producer says when it looked and found nothing committed since its
/// previous look (`Continuation.quiet()`): the consumer's `quiet` hook runs then, but only while
/// the consumer waits for its next signal, so it has read everything an earlier signal stood for.
/// A follower uses it to know that its index is as fresh as a read would make it, without being
/// woken for every look.
public struct ChangeSignals: AsyncSequence, Sendable {
  public typealias Element = Void
  public typealias Failure = Never

  private enum Source: Sendable {
    case channel(Channel, Lifetime)
    case every(Duration)
  }

  private let source: Source

  private init(_ source: Source) {
    self.source = source
  }

  /// Signals a producer feeds through the returned `Continuation` (a thread that polls, a task
  /// that reads notifications). `quiet` runs on the producer's thread or task, under the
  /// signals' lock: it must be quick, never block and never touch these signals.
  public static func makeSignals(quiet: @escaping @Sendable () -> Void = {}) -> (
    signals: ChangeSignals, continuation: Continuation
  ) {
    let channel = Channel(quiet: quiet)
    return (ChangeSignals(.channel(channel, Lifetime(channel))), Continuation(channel: channel))
  }

  /// A signal at once, then one every `interval` after the consumer asks for the next: for a
  /// storage that cannot tell when something was committed (the follower reads the feed each
  /// time). Never quiet.
  public static func every(_ interval: Duration) -> ChangeSignals {
    ChangeSignals(.every(interval))
  }

  public func makeAsyncIterator() -> AsyncIterator {
    switch source {
    case .channel(let channel, let lifetime): AsyncIterator(kind: .channel(channel, lifetime))
    case .every(let interval): AsyncIterator(kind: .every(interval, first: true))
    }
  }

  public struct AsyncIterator: AsyncIteratorProtocol {
    public typealias Failure = Never

    fileprivate enum Kind {
      case channel(Channel, Lifetime)
      case every(Duration, first: Bool)
    }

    fileprivate var kind: Kind

    /// The next signal; nil once the task is cancelled or the producer finished.
    public mutating func next() async -> Void? {
      if Task.isCancelled { return nil }
      switch kind {
      case .channel(let channel, _):
        return await channel.next() ? () : nil
      case .every(let interval, let first):
        if first {
          kind = .every(interval, first: false)
          return ()
        }
        do {
          try await Task.sleep(for: interval)
        } catch {
          return nil  // cancelled
        }
        return ()
      }
    }
  }

  /// The producer's side of `makeSignals`.
  public struct Continuation: Sendable {
    fileprivate let channel: Channel

    /// Something may have been committed since the previous look (or this is the first look).
    public func changed() { channel.changed() }

    /// A look found nothing committed since the previous look.
    public func quiet() { channel.quiet() }

    /// True once the consumer stopped (its task cancelled, the sequence dropped) or `finish()`
    /// was called: the producer stops looking.
    public var isFinished: Bool { channel.finished.load(ordering: .relaxed) }

    /// Ends the signals: a waiting consumer's iteration ends.
    public func finish() { channel.finish() }

    /// Runs `action` once when the signals end (the consumer's task cancelled, the sequence and its
    /// iterators dropped, or `finish()`), at once if they already have. A producer that waits on
    /// something other than a look's timer (a task reading notifications) is cancelled from here,
    /// so that it ends with its consumer. Quick and non-blocking, like `quiet`.
    public func onFinish(_ action: @escaping @Sendable () -> Void) { channel.onFinish(action) }
  }
}

/// The state between one producer and one consumer: at most one signal pending.
private final class Channel: Sendable {
  private struct State {
    var pending = false
    var waiter: CheckedContinuation<Bool, Never>?
    var finished = false
    var onFinish: [@Sendable () -> Void] = []
  }

  private let state = Mutex(State())
  let finished = Atomic<Bool>(false)
  private let onQuiet: @Sendable () -> Void

  init(quiet: @escaping @Sendable () -> Void) {
    onQuiet = quiet
  }

  func changed() {
    let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard !state.finished else { return nil }
      guard let waiter = state.waiter else {
        state.pending = true
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume(returning: true)
  }

  func quiet() {
    // Only while the consumer waits: it has read all that the signals before stood for.
    state.withLock { state in
      if state.waiter != nil, !state.finished { onQuiet() }
    }
  }

  func finish() {
    let (waiter, actions) = state.withLock { state in
      state.finished = true
      finished.store(true, ordering: .relaxed)
      defer {
        state.waiter = nil
        state.onFinish = []
      }
      return (state.waiter, state.onFinish)
    }
    waiter?.resume(returning: false)
    for action in actions { action() }
  }

  func onFinish(_ action: @escaping @Sendable () -> Void) {
    let now = state.withLock { state in
      if state.finished { return true }
      state.onFinish.append(action)
      return false
    }
    if now { action() }
  }

  /// True for a signal, false once finished.
  func next() async -> Bool {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        state.withLock { state in
          if state.finished {
            continuation.resume(returning: false)
          } else if state.pending {
            state.pending = false
            continuation.resume(returning: true)
          } else {
            state.waiter = continuation
          }
        }
      }
    } onCancel: {
      finish()
    }
  }
}

/// Finishes the channel when the last copy of the sequence and its iterators is gone, so a
/// producer never looks for a consumer that left without being cancelled.
private final class Lifetime: Sendable {
  let channel: Channel
  init(_ channel: Channel) { self.channel = channel }
  deinit { channel.finish() }
}
