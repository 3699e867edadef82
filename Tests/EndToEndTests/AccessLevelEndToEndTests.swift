import Testing
import TollgateClient
import TollgateCore

@Suite("Access levels end to end", .serialized)
struct AccessLevelEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("a catalog with billing_retry read_only: a user in billing retry reads inactive with read_only over the socket")
  func readOnlyInBillingRetry() async throws {
    let readOnlyInRetry: (inout ProductCatalog) -> Void = {
      $0.accessLevels = AccessLevelPolicy(levels: [.billingRetry: "read_only"])
    }
    try await withStack(catalog: readOnlyInRetry) { stack in
      let (purchase, submitted) = try await stack.buyAndSubmit(userId: "u")
      // The premium product unlocks more than one entitlement: every one is graded the same.
      #expect(!submitted.entitlements.isEmpty)
      #expect(submitted.entitlements.allSatisfy { $0.accessLevel == "full" })
      #expect(try await stack.answer("u").accessLevel == "full")
      _ = try await stack.sim.failRenewals(purchase.originalTransactionId)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let grace = try await stack.until("u") { $0.state == .gracePeriod }
      #expect(grace.active)
      #expect(grace.accessLevel == "full")
      _ = try await stack.sim.advance(byMs: 7 * Self.day)

      let retry = try await stack.until("u") { $0.state == .billingRetry }
      #expect(!retry.active)
      #expect(retry.accessLevel == "read_only")
      let summary = try await stack.client.getSubscription(userId: "u")
      let premium = try #require(summary.entitlements.first { $0.entitlement == "premium" })
      #expect(premium.state == .billingRetry)
      #expect(premium.accessLevel == "read_only")
      #expect(summary.entitlements.allSatisfy { $0.accessLevel == "read_only" })

      _ = try await stack.sim.advance(byMs: 61 * Self.day)
      let expired = try await stack.until("u") { $0.state == .expired }
      #expect(expired.accessLevel == "none")
      #expect(try await stack.answer("nobody").accessLevel == "")
    }
  }
}
