/// A write waiting for its transaction.
struct PendingWrite: Sendable {
  /// Runs the write's body in the open transaction. On success, how to answer the caller once the
  /// commit is known (nil: it is on disk; an error: it did not land); on failure, the body's error.
  let run: @Sendable (Connection) -> Result<@Sendable ((any Error)?) -> Void, any Error>
  /// Answers the caller with `error`: the write did not land.
  let fail: @Sendable (any Error) -> Void
}

struct WaitingWrites {
  var writes: [PendingWrite] = []
  var draining = false
}

extension SerializedConnection {
  /// Adds `write` to those waiting; the first to wait on an idle connection starts a drain.
  func enqueue(_ write: PendingWrite) {
    let start = waiting.withLock { waiting in
      waiting.writes.append(write)
      if waiting.draining { return false }
      waiting.draining = true
      return true
    }
    if start { queue.async { self.drainOnce() } }
  }

  /// Commits the writes waiting now (up to `groupLimit`) together, then, if more came meanwhile,
  /// goes to the back of the queue for them: reads queued in between run first.
  private func drainOnce() {
    let group = waiting.withLock { waiting in
      let group = Array(waiting.writes.prefix(Self.groupLimit))
      waiting.writes.removeFirst(group.count)
      return group
    }
    commit(group)
    let more = waiting.withLock { waiting in
      if waiting.writes.isEmpty { waiting.draining = false }
      return !waiting.writes.isEmpty
    }
    if more { queue.async { self.drainOnce() } }
  }

  /// One transaction for `group`: each write in its own savepoint when there are several (one
  /// that throws rolls back to it, and only it fails), one commit for all of them.
  private func commit(_ group: [PendingWrite]) {
    guard !group.isEmpty else { return }
    if let problem = file.problem() {
      for write in group { write.fail(problem) }
      return
    }
    let savepoints = group.count > 1
    var landed: [@Sendable ((any Error)?) -> Void] = []
    // The writes answered so far (landed, or failed and rolled back to their savepoint).
    var answered = 0
    do {
      try connection.execute("BEGIN IMMEDIATE")
      for write in group {
        if savepoints { try connection.execute("SAVEPOINT tollgate_write") }
        switch write.run(connection) {
        case .success(let answer):
          landed.append(answer)
          answered += 1
          if savepoints { try connection.execute("RELEASE tollgate_write") }
        case .failure(let error):
          write.fail(error)
          answered += 1
          guard savepoints, connection.inTransaction else {
            // Alone, or SQLite ended the whole transaction itself (an I/O error, a full disk):
            // nothing of it lands.
            throw error
          }
          try connection.execute("ROLLBACK TO tollgate_write")
          try connection.execute("RELEASE tollgate_write")
        }
      }
      try connection.execute("COMMIT")
    } catch {
      // The transaction failed (BEGIN, a savepoint, COMMIT, or a write that ended it): none of
      // it lands, and the writes not run yet fail with the same error.
      if connection.inTransaction { try? connection.execute("ROLLBACK") }
      for answer in landed { answer(error) }
      for write in group[answered...] { write.fail(error) }
      return
    }
    committed.add(1, ordering: .relaxed)
    committedWrites.add(UInt64(landed.count), ordering: .relaxed)
    let problem = file.problemAfterCommit()
    for answer in landed { answer(problem) }
  }
}
