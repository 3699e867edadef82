import Foundation
import Testing
import TollgateClient
import TollgateCore
import TollgateTesting

/// GetSubmission (issue 17) through the real path: SubmitPurchase without waiting, the worker
/// verifying against the simulator over HTTP, and the status read back over TCP.
@Suite("GetSubmission end to end", .serialized)
struct GetSubmissionEndToEndTests {
  @Test("a submission answered PENDING reads back VERIFIED with the entitlements; a forged one REJECTED with why")
  func statusAfterTheWaitRanOut() async throws {
    try await withStack(Self.statusAfterTheWaitRanOut)
  }

  static func statusAfterTheWaitRanOut(_ stack: Stack) async throws {
    let purchase = try await stack.local.buy(Stack.premium)
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = "waiter"
    request.store = .appStore
    request.receipt = purchase.signedTransaction
    request.waitMs = 0
    let submitted = try await stack.client.submitPurchase(request)
    #expect(submitted.status == .pending)

    let verified = try await eventually(timeout: .seconds(10)) {
      try await stack.client.getSubmission(submissionId: submitted.submissionID).status == .verified
    }
    #expect(verified != nil, "the submission was never verified")
    let status = try await stack.client.getSubmission(submissionId: submitted.submissionID)
    #expect(status.userID == "waiter")
    #expect(status.receivedAtMs > 0)
    #expect(status.entitlements.contains { $0.entitlement == "premium" && $0.active })

    // A signed transaction with its signature altered: the worker rejects it, and says why.
    var forged = request
    let parts = purchase.signedTransaction.split(separator: ".")
    forged.receipt = parts[0] + "." + parts[1] + "." + String(parts[2].reversed())
    forged.userID = "forger"
    let forgedSubmission = try await stack.client.submitPurchase(forged)
    let rejected = try await eventually(timeout: .seconds(10)) {
      try await stack.client.getSubmission(submissionId: forgedSubmission.submissionID).status == .rejected
    }
    #expect(rejected != nil, "the forged submission was never rejected")
    let refusal = try await stack.client.getSubmission(submissionId: forgedSubmission.submissionID)
    #expect(!refusal.rejectionReason.isEmpty)
    #expect(refusal.entitlements.isEmpty)

    do {
      _ = try await stack.client.getSubmission(submissionId: "987654321")
      Issue.record("an unknown submission was found")
    } catch let error as TollgateClientError {
      #expect(error.code == .notFound)
    }
  }
}
