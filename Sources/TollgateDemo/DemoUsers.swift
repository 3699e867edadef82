import StoreSimulator
import TollgateClient
import TollgateCore

/// The demo's users, each bought through the simulator and verified through the worker like any
/// real purchase.
public enum DemoUsers {
  public static let all = [
    "demo-active", "demo-trial", "demo-grace", "demo-expired", "demo-refunded", "demo-google-active",
    "demo-google-trial", "demo-google-grace", "demo-google-hold", "demo-google-paused", "demo-google-upgraded",
    "demo-google-refunded", "demo-amazon-active", "demo-amazon-trial", "demo-amazon-grace", "demo-amazon-cancelled",
  ]

  /// Creates them: the ones that need time to pass first, then a 31-day jump, then the fresh ones.
  /// Returns each user's state as the service answers it, and a store identifier of the user's
  /// purchase a support engineer could be handed (an App Store original transaction id, a Google
  /// Play order id, an Amazon receipt id).
  public static func create(on stack: LocalStack) async throws -> [(
    user: String, answer: Tollgate_V1_IsSubscriberResponse, storeId: String
  )] {
    let day: Int64 = 86_400_000
    // Account hold comes after a failed renewal (day 30) and the grace period (7 days): bought
    // 39 days before the end.
    let hold = try await stack.googleBuy()
    try await expectVerified(stack.googleSubmit(hold, userId: "demo-google-hold"), "demo-google-hold")
    _ = try await stack.sim.googleFailRenewals(hold.purchaseToken)
    _ = try await stack.sim.advance(byMs: 8 * day)

    let grace = try await stack.buy()
    try await expectVerified(stack.submit(grace.signedTransaction, userId: "demo-grace"), "demo-grace")
    _ = try await stack.sim.failRenewals(grace.originalTransactionId)

    let expired = try await stack.buy()
    try await expectVerified(stack.submit(expired.signedTransaction, userId: "demo-expired"), "demo-expired")
    _ = try await stack.sim.setAutoRenew(expired.originalTransactionId, enabled: false)

    let googleGrace = try await stack.googleBuy()
    try await expectVerified(stack.googleSubmit(googleGrace, userId: "demo-google-grace"), "demo-google-grace")
    _ = try await stack.sim.googleFailRenewals(googleGrace.purchaseToken)
    let paused = try await stack.googleBuy()
    try await expectVerified(stack.googleSubmit(paused, userId: "demo-google-paused"), "demo-google-paused")
    _ = try await stack.sim.googlePause(paused.purchaseToken, durationMs: 30 * day)
    let amazonGrace = try await stack.amazonBuy()
    try await expectVerified(
      stack.amazonSubmit(
        receiptId: amazonGrace.receiptId, amazonUserId: amazonGrace.userId, userId: "demo-amazon-grace"),
      "demo-amazon-grace")
    _ = try await stack.sim.amazonFailRenewals(amazonGrace.receiptId)
    let upgraded = try await stack.googleBuy(LocalStack.basic)
    try await expectVerified(stack.googleSubmit(upgraded, userId: "demo-google-upgraded"), "demo-google-upgraded")

    _ = try await stack.sim.advance(byMs: 31 * day)

    let active = try await stack.buy()
    try await expectVerified(stack.submit(active.signedTransaction, userId: "demo-active"), "demo-active")
    let trial = try await stack.buy(LocalStack.monthly, offer: "trial")
    try await expectVerified(stack.submit(trial.signedTransaction, userId: "demo-trial"), "demo-trial")
    let refunded = try await stack.buy()
    try await expectVerified(stack.submit(refunded.signedTransaction, userId: "demo-refunded"), "demo-refunded")
    _ = try await stack.sim.refund(refunded.originalTransactionId)

    let googleActive = try await stack.googleBuy()
    try await expectVerified(stack.googleSubmit(googleActive, userId: "demo-google-active"), "demo-google-active")
    let googleTrial = try await stack.googleBuy(LocalStack.monthly, offer: "trial")
    try await expectVerified(stack.googleSubmit(googleTrial, userId: "demo-google-trial"), "demo-google-trial")
    // Basic for a month, then upgraded at once to premium: a new purchase token linked to the first.
    _ = try await stack.sim.googleChangeProduct(upgraded.purchaseToken, to: LocalStack.premium)
    let googleRefunded = try await stack.googleBuy()
    try await expectVerified(
      stack.googleSubmit(googleRefunded, userId: "demo-google-refunded"), "demo-google-refunded")
    _ = try await stack.sim.googleRefund(googleRefunded.purchaseToken)

    let amazonActive = try await stack.amazonBuy()
    try await expectVerified(
      stack.amazonSubmit(
        receiptId: amazonActive.receiptId, amazonUserId: amazonActive.userId, userId: "demo-amazon-active"),
      "demo-amazon-active")
    let amazonTrial = try await stack.amazonBuy(freeTrial: true)
    try await expectVerified(
      stack.amazonSubmit(
        receiptId: amazonTrial.receiptId, amazonUserId: amazonTrial.userId, userId: "demo-amazon-trial"),
      "demo-amazon-trial")
    let amazonCancelled = try await stack.amazonBuy()
    try await expectVerified(
      stack.amazonSubmit(
        receiptId: amazonCancelled.receiptId, amazonUserId: amazonCancelled.userId, userId: "demo-amazon-cancelled"),
      "demo-amazon-cancelled")
    _ = try await stack.sim.amazonRefund(amazonCancelled.receiptId)

    let expected: [String: Tollgate_V1_SubscriptionState] = [
      "demo-active": .active, "demo-trial": .trial, "demo-grace": .gracePeriod, "demo-expired": .expired,
      "demo-refunded": .revoked, "demo-google-active": .active, "demo-google-trial": .trial,
      "demo-google-grace": .gracePeriod, "demo-google-hold": .onHold, "demo-google-paused": .paused,
      "demo-google-upgraded": .active, "demo-google-refunded": .revoked, "demo-amazon-active": .active,
      "demo-amazon-trial": .trial, "demo-amazon-grace": .gracePeriod, "demo-amazon-cancelled": .revoked,
    ]
    let storeIds: [String: String] = [
      "demo-active": active.originalTransactionId, "demo-trial": trial.originalTransactionId,
      "demo-grace": grace.originalTransactionId, "demo-expired": expired.originalTransactionId,
      "demo-refunded": refunded.originalTransactionId, "demo-google-active": googleActive.orderId,
      "demo-google-trial": googleTrial.orderId, "demo-google-grace": googleGrace.orderId,
      "demo-google-hold": hold.orderId, "demo-google-paused": paused.orderId, "demo-google-upgraded": upgraded.orderId,
      "demo-google-refunded": googleRefunded.orderId, "demo-amazon-active": amazonActive.receiptId,
      "demo-amazon-trial": amazonTrial.receiptId, "demo-amazon-grace": amazonGrace.receiptId,
      "demo-amazon-cancelled": amazonCancelled.receiptId,
    ]
    var answers: [(String, Tollgate_V1_IsSubscriberResponse, String)] = []
    for user in all {
      answers.append(
        (
          user,
          try await stack.until(user) {
            $0.state == expected[user] && (user != "demo-google-upgraded" || $0.productID == LocalStack.premium)
          },
          storeIds[user] ?? ""
        ))
    }
    return answers
  }

  struct NotVerified: Error, CustomStringConvertible {
    var description: String
  }

  static func expectVerified(_ response: Tollgate_V1_SubmitPurchaseResponse, _ user: String) throws {
    guard response.status == .verified else {
      throw NotVerified(
        description: "\(user): \(response.status) \(response.rejectionReason) \(response.error.message)")
    }
  }
}
