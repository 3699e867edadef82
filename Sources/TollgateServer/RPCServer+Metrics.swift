/// The fast port's metrics: each event-loop thread counts its own calls and refused connections
/// in plain memory (`ServerLoop.calls`), and a scrape asks every loop for a copy through its
/// mailbox, on the loop's own thread, and sums them. The hot path pays no atomic, no lock and no
/// clock read: a wake-up's IsSubscriber calls are recorded together once its work is done, timed
/// with the clocks the loop reads anyway (`ServerLoop.recordHotCalls`).
extension RPCServer {
  /// What every loop counted so far, summed. A loop answers between two wake-ups (microseconds
  /// when busy); one that has ended counts nothing any more.
  public func metrics() async -> DoorSnapshot {
    var total = DoorSnapshot()
    for mailbox in runningMailboxes {
      let counted = await withCheckedContinuation { (continuation: CheckedContinuation<DoorSnapshot?, Never>) in
        if !mailbox.post(.snapshot({ continuation.resume(returning: $0) })) { continuation.resume(returning: nil) }
      }
      if let counted { total.add(counted) }
    }
    return total
  }
}
