import Synchronization

/// One place in the worker loop's bound of items in flight (`VerifierWorker.loop`), which a store
/// call past its overtime gives back (`StoreCallLimiter`): an item waiting on a call that hangs
/// until the store's deadline holds its own chain, not a place the other chains need. The loop
/// runs each item in a task whose `LoopSlot.current` is its slot; the limiter gives it back once.
public final class LoopSlot: Sendable {
  /// The slot of the item (or check) the current task processes, if the loop set one.
  @TaskLocal public static var current: LoopSlot?

  private let released = Atomic<Bool>(false)
  private let onRelease: @Sendable () -> Void

  /// - Parameter onRelease: called once, when the slot is given back.
  init(onRelease: @escaping @Sendable () -> Void) {
    self.onRelease = onRelease
  }

  /// Gives the slot back; only the first call counts.
  func release() {
    guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    onRelease()
  }

  /// Whether it was given back before its item ended.
  var isReleased: Bool { released.load(ordering: .acquiring) }
}
