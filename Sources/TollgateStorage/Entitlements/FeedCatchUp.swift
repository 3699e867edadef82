import TollgateCore

/// Everything a change-feed follower reads when it is woken, from one call
/// (`EntitlementStorage.catchUp(after:limit:)`): where the feed stands, the saved access levels,
/// the entries after the follower's position and the current records of the users they name.
public struct FeedCatchUp: Sendable, Hashable {
  /// Where the feed stands, as `feedMark(at: seq)` reads it: the database's id, the head and the
  /// entry at the follower's position.
  public var mark: FeedMark
  /// The access levels of the catalog the worker saved (`savedAccessLevels()`: nil when none was
  /// saved), or why they cannot be read. Levels that cannot be read never stop the feed.
  public var accessLevels: Result<AccessLevelPolicy?, UnreadableAccessLevels>
  /// The entries after `seq`, oldest first, at most `limit` (`changes(after:limit:)`).
  public var entries: [ChangeFeedEntry]
  /// The current records of every user the entries name (`entitlements(forUsers:)`): a user with
  /// none is absent. In no particular order within a user.
  public var records: [String: [EntitlementRecord]]

  public init(
    mark: FeedMark, accessLevels: Result<AccessLevelPolicy?, UnreadableAccessLevels>, entries: [ChangeFeedEntry],
    records: [String: [EntitlementRecord]]
  ) {
    self.mark = mark
    self.accessLevels = accessLevels
    self.entries = entries
    self.records = records
  }
}

/// The saved catalog's access levels could not be read (a newer worker's catalog naming a state
/// this version does not know): why, in a sentence.
public struct UnreadableAccessLevels: Error, Sendable, Hashable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
  }
}

extension EntitlementStorage {
  /// The four reads one after the other, in the order the contract asks (the mark first, the
  /// records last): right for a storage whose reads are local calls (SQLite). A storage behind a
  /// network reads them in one round trip and one snapshot (PostgreSQL: one statement).
  public func catchUp(after seq: Int64, limit: Int) async throws -> FeedCatchUp {
    let mark = try await feedMark(at: seq)
    let accessLevels: Result<AccessLevelPolicy?, UnreadableAccessLevels>
    do {
      accessLevels = .success(try await savedAccessLevels())
    } catch {
      accessLevels = .failure(UnreadableAccessLevels("\(error)"))
    }
    let entries = try await changes(after: seq, limit: limit)
    let records = try await entitlements(forUsers: Array(Set(entries.map(\.userId))))
    return FeedCatchUp(mark: mark, accessLevels: accessLevels, entries: entries, records: records)
  }
}
