import Testing
import TollgateCore

@testable import TollgateWorker

/// Issue 25 item 7: a store that signs nothing its buyer holds (Amazon: a receipt id with its
/// Amazon user id, both readable by others) lets any caller bind a purchase nobody owns, but
/// moves one bound to another user only for a trusted caller (`admin`, or a server without
/// callers), whatever the transfer policy.
@Suite("Transfers on evidence no store signed")
struct UnsignedStoreTransferTests {
  static let unsigned = ClaimEvidence.vouchedWithoutSignature("Amazon signs nothing a buyer holds")

  func parts() -> WorkerParts {
    let parts = WorkerParts(transferPolicy: .transferToNewest)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    parts.gateway.state.withLock { $0.claimEvidence["otx-1@ids"] = Self.unsigned }
    return parts
  }

  func submit(_ parts: WorkerParts, user: String, trusted: Bool?) async throws -> Int64 {
    var submission = PurchaseSubmission(
      userId: user, store: .appStore, receipt: "otx-1@ids", appId: FakeStoreGateway.appId)
    submission.callerIsTrusted = trusted
    let id = try await parts.storage.enqueue(submission, nowMs: parts.now)
    await parts.processDue()
    return id
  }

  @Test("any caller binds a purchase nobody owns; a submit caller cannot move it; an admin caller can")
  func onlyTrustedCallersMove() async throws {
    let parts = parts()
    let first = try await submit(parts, user: "victim", trusted: false)
    #expect(await parts.storage.item(first)?.status == .verified)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "victim")

    let stolen = try #require(await parts.storage.item(try await submit(parts, user: "thief", trusted: false)))
    #expect(stolen.status == .rejected)
    #expect(stolen.outcome?.contains("transfer_to_newest moves it only for an admin caller") == true, "\(stolen)")
    #expect(stolen.outcome?.contains("Amazon signs nothing a buyer holds") == true)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "victim")
    #expect(await parts.storage.entitlements(userId: "thief").isEmpty)
    #expect(await parts.storage.events(userId: "victim").map(\.kind).contains("transfer_refused"))

    let moved = try await submit(parts, user: "operator-moved", trusted: true)
    #expect(await parts.storage.item(moved)?.status == .verified)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "operator-moved")
    #expect(await parts.storage.entitlements(userId: "victim").isEmpty)
  }

  @Test("a trusted caller does not make stale signed evidence enough: that refusal stands for everyone")
  func staleStaysRefused() async throws {
    let parts = parts()
    parts.gateway.state.withLock {
      $0.claimEvidence["otx-1@ids"] = .vouched(signedAtMs: 1, notForTransfer: "the signed transaction is 3 days old")
    }
    _ = try await submit(parts, user: "victim", trusted: false)
    let id = try await submit(parts, user: "other", trusted: true)
    #expect(await parts.storage.item(id)?.status == .rejected)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "victim")
  }
}
