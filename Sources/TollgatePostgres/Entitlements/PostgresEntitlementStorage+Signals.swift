import TollgateStorage

extension PostgresEntitlementStorage {
  /// The `application_name` of the connection that listens for change notifications
  /// (`pg_stat_activity` shows it; the pool's other connections are `tollgate`).
  public static let listenerApplicationName = "tollgate-listen"

  /// Looks that may find the feed moved, with no notification in between, before the listening
  /// connection is taken for dead (cut without a word) and replaced.
  public static let silentLooksBeforeReconnect = 3

  /// Signals from `LISTEN tollgate_changes` on a connection of its own, one at once, one per
  /// notification, one whenever the listening connection is (re)established and one from a slow
  /// look when a commit came without one (`PostgresChangeListener`). `interval` is not used: a
  /// commit is announced, not looked for; the look runs every `fallbackInterval` (1 s).
  ///
  /// The listener runs in a task these signals own: it is cancelled when they end (the follower's
  /// task cancelled, the sequence dropped: `ChangeSignals.Continuation.onFinish`), and everything
  /// it waits on ends on cancellation, so it never outlives its follower by more than a statement
  /// in flight. Not a fire-and-forget task: its one owner is the sequence, and nothing else can
  /// keep it alive.
  public func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    let (signals, continuation) = ChangeSignals.makeSignals(quiet: quiet)
    let listener = PostgresChangeListener(storage: self, continuation: continuation, logger: logger)
    let task = Task { await listener.run() }
    continuation.onFinish { task.cancel() }
    return signals
  }
}
