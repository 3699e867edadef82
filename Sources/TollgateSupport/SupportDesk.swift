import Logging
import TollgateCore
import TollgateWorker

/// What a support engineer does for a customer, over the worker's storage seam, so it works on
/// SQLite and PostgreSQL and from any replica: look a purchase up by any store identifier, read a
/// user's timeline and why they have (or lack) an entitlement, grant and revoke, ask for a
/// re-verification, and erase a user (GDPR). Writes go through `WorkerAdmin` with the catalog the
/// worker saved (`WorkerStorage.savedCatalog()`), the same path as `tollgate grant --database`.
/// No database or store module is known here: the App Store's order lookup comes in through
/// `OrderLookupGateway`.
public struct SupportDesk: Sendable {
  /// The longest note kept with a grant or revocation, in UTF-8 bytes.
  public static let maximumNoteBytes = 1_024
  /// The most matches a lookup returns.
  public static let lookupLimit = 100

  let storage: any WorkerStorage
  let orderLookups: [any OrderLookupGateway]
  let settings: WorkerSettings
  /// The deployment's clock (the worker's and the service's).
  public let nowMs: @Sendable () -> Int64
  let logger: Logger

  /// - Parameters:
  ///   - gateways: the stores to ask what Tollgate does not store (the App Store's order ids);
  ///     none: a lookup answers from storage alone, with a note.
  ///   - settings: the worker's settings, which decide what a grant's recompute gives (its clock
  ///     skew tolerance and outage leeway): the worker's own where known.
  public init(
    storage: any WorkerStorage, gateways: StoreGateways = StoreGateways([]),
    settings: WorkerSettings = WorkerSettings(),
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    self.storage = storage
    self.orderLookups = gateways.orderLookups
    self.settings = settings
    self.nowMs = nowMs
    self.logger = logger
  }

  /// The operator's commands on the worker's catalog; `SupportError.noCatalog` before any worker ran.
  func admin(requireCatalog: Bool) async throws -> WorkerAdmin {
    if let catalog = try await storage.savedCatalog() {
      return WorkerAdmin(storage: storage, catalog: catalog, settings: settings, nowMs: nowMs)
    }
    guard !requireCatalog else {
      throw SupportError(
        .noCatalog, "no worker has run on this database yet: there is no catalog to check the entitlement against")
    }
    return WorkerAdmin(storage: storage, catalog: .defaults, settings: settings, nowMs: nowMs)
  }

  /// Grants `entitlement` (one the catalog names) to `userId` until `untilMs` (after now); returns
  /// the grant id. The `granted` event carries `note` and `actor`.
  public func grant(userId: String, entitlement: String, untilMs: Int64, note: String?, actor: String) async throws
    -> Int64
  {
    try Self.check(note: note)
    let id = try await admin(requireCatalog: true).grant(
      userId: userId, entitlement: entitlement, untilMs: untilMs, note: note, actor: actor)
    logger.info(
      "granted",
      metadata: ["support.actor": "\(StrangerText.loggable(actor))", "support.entitlement": "\(entitlement)"])
    return id
  }

  /// Ends the user's open grants of `entitlement`; returns how many (`SupportError.nothingToRevoke`
  /// when there were none). Each `grant_revoked` event carries `note` and `actor`.
  public func revoke(userId: String, entitlement: String, note: String?, actor: String) async throws -> Int {
    try Self.check(note: note)
    let count = try await admin(requireCatalog: false).revoke(
      userId: userId, entitlement: entitlement, note: note, actor: actor)
    guard count > 0 else {
      throw SupportError(.nothingToRevoke, "the user has no open grant of \(StrangerText.loggable(entitlement))")
    }
    return count
  }

  /// Makes the worker read every store subscription of `userId` again now; returns how many
  /// (`SupportError.unknownUser` when none is bound to the user).
  public func reverify(userId: String) async throws -> Int {
    let count = try await admin(requireCatalog: false).reverify(userId: userId)
    guard count > 0 else { throw SupportError(.unknownUser, "no store subscription is bound to this user") }
    return count
  }

  /// Why `userId` has, or lacks, `entitlement` now (`WorkerAdmin.explain`).
  public func explain(userId: String, entitlement: String) async throws -> Explanation {
    try await admin(requireCatalog: false).explain(userId: userId, entitlement: entitlement)
  }

  /// Everything Tollgate knows happened to the user's purchases and grants
  /// (`SupportError.unknownUser` when it holds nothing of the user).
  public func timeline(userId: String) async throws -> Timeline {
    try AdminError.checked(userId: userId)
    guard let timeline = try await TimelineBuilder(storage: storage).timeline(userId: userId, nowMs: nowMs()) else {
      throw SupportError(.unknownUser, "Tollgate holds nothing of this user")
    }
    return timeline
  }

  /// Deletes what Tollgate holds of `userId` (GDPR erase; `WorkerStorage.eraseUser`), or with
  /// `dryRun` counts it. The store purchases stay, bound to nobody, and bind again only on fresh
  /// proof. `SupportError.unknownUser` when there was nothing. The log names who asked and the
  /// counts, never the user.
  public func erase(userId: String, dryRun: Bool, actor: String) async throws -> ErasureCounts {
    try AdminError.checked(userId: userId)
    let counts = try await storage.eraseUser(userId, dryRun: dryRun, nowMs: nowMs())
    guard !counts.isEmpty else { throw SupportError(.unknownUser, "Tollgate holds nothing of this user") }
    logger.info(
      dryRun ? "erase counted (dry run)" : "user erased",
      metadata: [
        "support.actor": "\(StrangerText.loggable(actor))", "support.subscriptions": "\(counts.subscriptionsUnbound)",
        "support.events": "\(counts.events)", "support.grants": "\(counts.grants)",
      ])
    return counts
  }

  static func check(note: String?) throws(SupportError) {
    if let note, note.utf8.count > maximumNoteBytes {
      throw SupportError(.invalidArgument, "note is longer than \(maximumNoteBytes) bytes")
    }
  }
}

extension AdminError {
  /// `check(userId:)`, visible to the support desk.
  static func checked(userId: String) throws(AdminError) {
    if let problem = UserIdLimits.problem(userId) { throw .invalidUserId(problem) }
  }
}
