import Foundation
import Testing
import TollgateCore
import TollgateDemo
import TollgateRPC
import TollgateService
import TollgateTesting
import TollgateWorker

/// `grant`, `revoke`, `reverify` and `explain` against a running stack: their writes reach the
/// service through the change feed like any other.
@Suite("Admin commands end to end", .serialized)
struct AdminEndToEndTests {
  @Test("grant then revoke a promotional entitlement; explain shows the deciding source and its evidence")
  func grantRevokeExplain() async throws {
    try await withStack { stack in
      let admin = try WorkerAdmin(
        databasePath: stack.local.databasePath, catalog: stack.local.configuration.catalog, nowMs: stack.local.nowMs)
      let until = stack.local.nowMs() + 7 * 86_400_000
      _ = try await admin.grant(userId: "vip", entitlement: "premium", untilMs: until, note: "support ticket 42")
      let granted = try await stack.until("vip") { $0.active }
      #expect(granted.active)
      #expect(granted.store == .promotional)
      #expect(granted.expiresAtMs == until)

      let explained = try await admin.explain(userId: "vip", entitlement: "premium")
      #expect(explained.active)
      #expect(explained.sources.first?.rule == "promotional_grant")
      #expect(explained.sources.first?.grantNote == "support ticket 42")

      #expect(try await admin.revoke(userId: "vip", entitlement: "premium") == 1)
      #expect(!(try await stack.until("vip") { !$0.active }).active)

      // A store purchase: explain names the rule and the signed payloads it was decided from.
      let (purchase, _) = try await stack.buyAndSubmit(userId: "buyer")
      let store = try await admin.explain(userId: "buyer", entitlement: "premium")
      let source = try #require(store.sources.first)
      #expect(source.decides)
      #expect(source.rule == "current_period")
      #expect(source.evidenceSource == "app_store_server_api")
      #expect(source.payloads.contains { $0.kind == "transaction" && $0.id == purchase.transactionId && $0.sha256.count == 64 })
      #expect(source.payloads.contains { $0.kind == "renewal_info" })
      #expect(store.text.contains("current_period"))

      // reverify makes the worker look again now.
      try await stack.settle()
      let before = try await stack.answer("buyer").verifiedAtMs
      #expect(try await admin.reverify(userId: "buyer") == 1)
      let after = try await stack.until("buyer") { $0.verifiedAtMs > before }
      #expect(after.verifiedAtMs > before)
    }
  }
}
