import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateTesting

/// Issue 17, the transfer theft, through the real path (the simulator over HTTP, the worker on
/// SQLite, the service over TCP): with `transfer_to_newest`, whoever could read a victim's
/// transaction id, or once saw a signed payload of it, could move the victim's access to another
/// user. Now a transfer needs the policy and a payload Apple signed within `transferFreshnessMs`.
@Suite("Ownership proof end to end", .serialized)
struct OwnershipProofEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("the transfer theft: a victim's transaction id, read from GetSubscription and resubmitted, moves nothing")
  func transferTheft() async throws {
    try await withStack(transferPolicy: .transferToNewest) { stack in
      let (purchase, bought) = try await stack.buyAndSubmit(userId: "victim")
      #expect(bought.status == .verified)
      // What anyone allowed to read the victim's subscriptions learns.
      let summary = try await stack.client.getSubscription(userId: "victim")
      let stolenId = try #require(summary.subscriptions.first?.storeSubscriptionID)
      #expect(stolenId == purchase.originalTransactionId)

      for id in [stolenId, purchase.transactionId] {
        let stolen = try await stack.submit(id, userId: "thief")
        #expect(stolen.status == .rejected)
        #expect(stolen.rejectionReason.contains("a bare transaction id does not prove who bought it"))
        #expect(stolen.rejectionReason.contains("jwsRepresentation"), "\(stolen.rejectionReason)")
      }
      #expect(try await stack.answer("victim").active)
      #expect(!(try await stack.answer("thief").active))
      #expect(try await stack.events("victim").filter { $0 == "transfer_refused" }.count == 2)
      #expect(!(try await stack.events("thief").contains("transferred")))
      let still = try await stack.client.getSubscription(userId: "victim")
      #expect(still.subscriptions.first?.storeSubscriptionID == stolenId)
    }
  }

  @Test("a copied stale signed transaction or receipt moves nothing; a fresh one from the new owner's device does")
  func freshnessDecides() async throws {
    try await withStack(transferPolicy: .transferToNewest) { stack in
      let (purchase, bought) = try await stack.buyAndSubmit(userId: "victim")
      #expect(bought.status == .verified)
      // Two days later (the monthly subscription still runs), what was copied at purchase is stale.
      _ = try await stack.sim.advance(byMs: 2 * Self.day)
      #expect(try await stack.answer("victim").active)

      let copiedJWS = try await stack.submit(purchase.signedTransaction, userId: "thief")
      #expect(copiedJWS.status == .rejected)
      #expect(copiedJWS.rejectionReason.contains("signed 48 h ago, more than the 24 h"), "\(copiedJWS.rejectionReason)")
      let copiedReceipt = try await stack.submit(try #require(purchase.appReceipt), userId: "thief")
      #expect(copiedReceipt.status == .rejected)
      #expect(copiedReceipt.rejectionReason.contains("app receipt was signed"), "\(copiedReceipt.rejectionReason)")
      let copiedReceiptData = try await stack.submit(purchase.receiptData, userId: "thief")
      #expect(copiedReceiptData.status == .rejected, "\(copiedReceiptData.rejectionReason)")
      #expect(try await stack.answer("victim").active)
      #expect(!(try await stack.answer("thief").active))
      #expect(try await stack.events("victim").filter { $0 == "transfer_refused" }.count == 3)

      // The purchase restored on the new owner's device: the App Store signs it again now.
      let restored = try stack.sim.restore(purchase.originalTransactionId)
      let moved = try await stack.submit(restored.signedTransaction, userId: "newowner")
      #expect(moved.status == .verified, "\(moved.rejectionReason)")
      #expect(try await stack.until("newowner") { $0.active }.active)
      #expect(!(try await stack.until("victim") { !$0.active }.active))
      #expect(try await stack.events("newowner").contains("transferred"))

      // A fresh app receipt (PKCS#7, signed by the simulator's receipt-signing certificate) moves it too.
      let receipt = try #require(try stack.sim.restore(purchase.originalTransactionId).appReceipt)
      let again = try await stack.submit(receipt, userId: "third")
      #expect(again.status == .verified, "\(again.rejectionReason)")
      #expect(try await stack.until("third") { $0.active }.active)
      #expect(!(try await stack.until("newowner") { !$0.active }.active))
    }
  }

  @Test("through a served port with callers, a bare transaction id binds for an admin caller only")
  func bareIdNeedsTrustedCaller() async throws {
    try await withStack { stack in
      let appKey = "tgk_app_0123456789abcdef"
      let opsKey = "tgk_ops_fedcba9876543210"
      let dir = try TemporaryDirectory(prefix: "tollgate-callers")
      defer { dir.remove() }
      let served = try await ServeAccessEndToEndTests.serve(
        [
          "listen": "127.0.0.1:0", "database": stack.local.databasePath,
          "callers": [
            ["name": "app", "keySha256": SHA256.hash(appKey).hexString, "scopes": ["read", "submit"]],
            ["name": "ops", "keySha256": SHA256.hash(opsKey).hexString, "scopes": ["admin"]],
          ],
        ], in: dir)
      defer { served.process.terminate() }
      func submit(_ receipt: String, as caller: String, key: String, userId: String) async throws
        -> Tollgate_V1_SubmitPurchaseResponse
      {
        let client = try ServeAccessEndToEndTests.client(served.tcp, caller: caller, key: key)
        var request = Tollgate_V1_SubmitPurchaseRequest()
        request.userID = userId
        request.store = .appStore
        request.receipt = receipt
        request.waitMs = 8_000
        do {
          let response = try await client.submitPurchase(request, timeout: .seconds(10))
          await client.close()
          return response
        } catch {
          await client.close()
          throw error
        }
      }

      let purchase = try await stack.local.buy()
      let refused = try await submit(purchase.transactionId, as: "app", key: appKey, userId: "mallory")
      #expect(refused.status == .rejected)
      #expect(refused.rejectionReason.contains("a bare transaction id does not prove who bought it"))
      #expect(try await stack.events("mallory").contains("claim_refused"))
      #expect(!(try await stack.answer("mallory").active))
      // The signed transaction proves it, from the same caller.
      let signed = try await submit(purchase.signedTransaction, as: "app", key: appKey, userId: "alice")
      #expect(signed.status == .verified, "\(signed.rejectionReason)")

      let other = try await stack.local.buy()
      let admin = try await submit(other.transactionId, as: "ops", key: opsKey, userId: "bob")
      #expect(admin.status == .verified, "\(admin.rejectionReason)")
      #expect(try await stack.until("bob") { $0.active }.active)
    }
  }
}
