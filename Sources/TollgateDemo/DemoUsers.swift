import StoreSimulator
import TollgateClient
import TollgateCore

/// The demo's users, each bought through the simulator and verified through the worker like any
/// real purchase.
public enum DemoUsers {
  public static let all = ["demo-active", "demo-trial", "demo-grace", "demo-expired", "demo-refunded"]

  /// Creates them: the ones that need time to pass first, then a 31-day jump, then the fresh ones.
  /// Returns each user's state as the service answers it.
  public static func create(on stack: LocalStack) async throws -> [(
    user: String, answer: Tollgate_V1_IsSubscriberResponse
  )] {
    let day: Int64 = 86_400_000
    let grace = try await stack.buy()
    try await expectVerified(stack.submit(grace.signedTransaction, userId: "demo-grace"), "demo-grace")
    _ = try await stack.sim.failRenewals(grace.originalTransactionId)

    let expired = try await stack.buy()
    try await expectVerified(stack.submit(expired.signedTransaction, userId: "demo-expired"), "demo-expired")
    _ = try await stack.sim.setAutoRenew(expired.originalTransactionId, enabled: false)

    _ = try await stack.sim.advance(byMs: 31 * day)

    let active = try await stack.buy()
    try await expectVerified(stack.submit(active.signedTransaction, userId: "demo-active"), "demo-active")
    let trial = try await stack.buy(LocalStack.monthly, offer: "trial")
    try await expectVerified(stack.submit(trial.signedTransaction, userId: "demo-trial"), "demo-trial")
    let refunded = try await stack.buy()
    try await expectVerified(stack.submit(refunded.signedTransaction, userId: "demo-refunded"), "demo-refunded")
    _ = try await stack.sim.refund(refunded.originalTransactionId)

    let expected: [String: Tollgate_V1_SubscriptionState] = [
      "demo-active": .active, "demo-trial": .trial, "demo-grace": .gracePeriod, "demo-expired": .expired,
      "demo-refunded": .revoked,
    ]
    var answers: [(String, Tollgate_V1_IsSubscriberResponse)] = []
    for user in all {
      answers.append((user, try await stack.until(user) { $0.state == expected[user] }))
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
