import TollgateCore
import TollgateWorker

/// Everything the support console's user page shows of one user, read at one `evaluatedAtMs`:
/// the timeline, why each entitlement is (or is not) the user's now, and the user's recent events
/// with their webhook deliveries.
public struct UserOverview: Sendable {
  public var userId: String
  public var evaluatedAtMs: Int64
  /// Nil when Tollgate holds no purchase, event or grant of the user.
  public var timeline: Timeline?
  /// One explanation per entitlement the saved catalog names or a record of the user grants, the
  /// catalog's first, in its order.
  public var entitlements: [Explanation]
  /// The user's newest events, newest first, each with its delivery to every webhook endpoint.
  public var deliveries: [EventDeliveries]

  public init(
    userId: String, evaluatedAtMs: Int64, timeline: Timeline?, entitlements: [Explanation],
    deliveries: [EventDeliveries]
  ) {
    self.userId = userId
    self.evaluatedAtMs = evaluatedAtMs
    self.timeline = timeline
    self.entitlements = entitlements
    self.deliveries = deliveries
  }
}

extension SupportDesk {
  /// The most recent events a user page lists.
  public static let userPageEventLimit = 50

  /// What the console's user page shows of `userId` (`UserOverview`); `SupportError.unknownUser`
  /// when Tollgate holds nothing of the user. Reads only.
  public func userOverview(userId: String, eventLimit: Int = SupportDesk.userPageEventLimit) async throws
    -> UserOverview
  {
    try AdminError.checked(userId: userId)
    let now = nowMs()
    let timeline = try await TimelineBuilder(storage: storage).timeline(userId: userId, nowMs: now)
    let records = try await storage.entitlements(userId: userId)
    guard timeline != nil || !records.isEmpty else {
      throw SupportError(.unknownUser, "Tollgate holds nothing of this user")
    }
    var names = try await storage.savedCatalog()?.entitlements.map(\.id) ?? []
    for record in records where !names.contains(record.entitlement) { names.append(record.entitlement) }
    let admin = try await admin(requireCatalog: false)
    var explanations: [Explanation] = []
    for name in names {
      explanations.append(try await admin.explain(userId: userId, entitlement: name))
    }
    let deliveries = try await storage.webhookDeliveries(userId: userId, limit: eventLimit)
    return UserOverview(
      userId: userId, evaluatedAtMs: now, timeline: timeline, entitlements: explanations, deliveries: deliveries)
  }
}
