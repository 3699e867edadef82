import Synchronization
import TollgateCore

/// Every user's entitlement records, in memory: what IsSubscriber and GetSubscription answer from.
/// Reads take a short lock and copy out one user's records; writes replace one user at a time.
public final class EntitlementIndex: Sendable {
  private struct State {
    var users: [String: [EntitlementRecord]] = [:]
    var recordCount = 0
  }

  private let state = Mutex(State())

  public init() {}

  /// The records of `userId` (empty when the user is unknown).
  public func records(for userId: String) -> [EntitlementRecord] {
    state.withLock { $0.users[userId] ?? [] }
  }

  /// Replaces everything with `records` (start-up).
  public func load(_ records: [EntitlementRecord]) {
    var users: [String: [EntitlementRecord]] = [:]
    users.reserveCapacity(records.count)
    for record in records {
      users[record.userId, default: []].append(record)
    }
    let count = records.count
    state.withLock { state in
      state.users = users
      state.recordCount = count
    }
  }

  /// Replaces the records of one user; an empty array removes the user.
  public func replace(userId: String, with records: [EntitlementRecord]) {
    state.withLock { state in
      let previous = state.users[userId]?.count ?? 0
      state.users[userId] = records.isEmpty ? nil : records
      state.recordCount += records.count - previous
    }
  }

  public var userCount: Int { state.withLock { $0.users.count } }
  public var recordCount: Int { state.withLock { $0.recordCount } }
}
