import Testing
import TollgateCore

@testable import TollgateWorker

/// Ownership proof (issue 17): a bare identifier binds a purchase only for a trusted caller or
/// the purchase's own app account token; a transfer needs the policy and a fresh payload the
/// store signed. Submissions go through the inbox, as the service stores them.
@Suite("Ownership proof of submitted purchases")
struct OwnershipProofTests {
  static let bare = ClaimEvidence.identifierOnly("a bare transaction id does not prove who bought it")
  static let stale = ClaimEvidence.vouched(signedAtMs: 1, notForTransfer: "the signed transaction is 3 days old")

  /// A submission of `receipt` by `user` through a caller trusted (or not) with bare ids.
  func submit(_ parts: WorkerParts, _ receipt: String, user: String, trusted: Bool?) async throws -> Int64 {
    var submission = PurchaseSubmission(userId: user, store: .appStore, receipt: receipt, appId: FakeStoreGateway.appId)
    submission.callerIsTrusted = trusted
    submission.caller = trusted == false ? "app-backend" : "admin"
    let id = try await parts.storage.enqueue(submission, nowMs: parts.now)
    await parts.processDue()
    return id
  }

  /// Parts whose store answers otx-1 (with `token` as its app account token), with `otx-1@bare`
  /// a bare transaction id of it and `otx-1@stale` a signed transaction copied days ago.
  func parts(
    _ policy: TransferPolicy = .keepWithOriginalOwner, token: String? = nil,
    configure: (inout WorkerSettings) -> Void = { _ in }
  ) -> WorkerParts {
    let parts = WorkerParts(transferPolicy: policy, configure: configure)
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1", appAccountToken: token)))
    parts.gateway.state.withLock {
      $0.claimEvidence["otx-1@bare"] = Self.bare
      $0.claimEvidence["otx-1@stale"] = Self.stale
    }
    return parts
  }

  @Test("a bare id from a caller not trusted with one is refused with the advice, recorded, and binds nobody")
  func bareIdUntrusted() async throws {
    let parts = parts()
    let id = try await submit(parts, "otx-1@bare", user: "mallory", trusted: false)
    let item = try #require(await parts.storage.item(id))
    #expect(item.status == .rejected)
    #expect(item.outcome == Self.bare.transferRefusal)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == nil)
    #expect(await parts.storage.entitlements(userId: "mallory").isEmpty)
    let refused = try #require(await parts.storage.events(userId: "mallory").first { $0.kind == "claim_refused" })
    #expect(refused.detail?.contains("bare identifier") == true)

    // The buyer's own signed transaction binds it afterwards.
    let own = try await submit(parts, "otx-1", user: "alice", trusted: false)
    #expect(await parts.storage.item(own)?.status == .verified)
    #expect(await parts.storage.entitlements(userId: "alice").map(\.entitlement) == ["premium"])
  }

  @Test("a bare id binds a purchase nobody owns for a trusted caller, and for submissions stored before callers")
  func bareIdTrusted() async throws {
    for trusted in [true, nil] as [Bool?] {
      let parts = parts()
      let id = try await submit(parts, "otx-1@bare", user: "alice", trusted: trusted)
      #expect(await parts.storage.item(id)?.status == .verified, "callerIsTrusted \(String(describing: trusted))")
      #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "alice")
    }
  }

  @Test("a bare id from an untrusted caller binds when the purchase's app account token names the claimant")
  func bareIdWithMatchingToken() async throws {
    // Compared as bindAppAccountToken compares (without regard to case), with or without that setting.
    for bind in [false, true] {
      let parts = parts(token: "AAAA-1111") { $0.bindAppAccountToken = bind }
      let id = try await submit(parts, "otx-1@bare", user: "aaaa-1111", trusted: false)
      #expect(await parts.storage.item(id)?.status == .verified, "bindAppAccountToken \(bind)")
      #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "aaaa-1111")
    }
    let other = parts(token: "AAAA-1111")
    let refused = try await submit(other, "otx-1@bare", user: "mallory", trusted: false)
    #expect(await other.storage.item(refused)?.status == .rejected)
  }

  @Test("the owner's own bare id changes nothing and is not refused")
  func bareIdByOwner() async throws {
    let parts = parts()
    _ = try await submit(parts, "otx-1", user: "alice", trusted: false)
    let again = try await submit(parts, "otx-1@bare", user: "alice", trusted: false)
    #expect(await parts.storage.item(again)?.status == .verified)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])
  }

  @Test(
    "transfer_to_newest moves a purchase only on fresh signed evidence: never a bare id, not even from an admin",
    arguments: [
      ("otx-1@bare", true as Bool?), ("otx-1@bare", nil), ("otx-1@bare", false), ("otx-1@stale", true),
      ("otx-1@stale", false),
    ])
  func transferNeedsFreshEvidence(receipt: String, trusted: Bool?) async throws {
    let parts = parts(.transferToNewest)
    _ = try await submit(parts, "otx-1", user: "victim", trusted: false)
    let id = try await submit(parts, receipt, user: "thief", trusted: trusted)

    let item = try #require(await parts.storage.item(id))
    #expect(item.status == .rejected)
    #expect(item.outcome?.contains("transfer_to_newest moves it only on a fresh payload the store signed") == true)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "victim")
    #expect(await parts.storage.entitlements(userId: "victim").map(\.entitlement) == ["premium"])
    #expect(await parts.storage.entitlements(userId: "thief").isEmpty)
    let refused = try #require(await parts.storage.events(userId: "victim").first { $0.kind == "transfer_refused" })
    #expect(refused.detail?.contains("claimed by thief under transfer_to_newest, not moved") == true)
  }

  @Test("transfer_to_newest moves a purchase on fresh signed evidence, from any caller")
  func transferWithFreshEvidence() async throws {
    let parts = parts(.transferToNewest)
    _ = try await submit(parts, "otx-1", user: "old", trusted: false)
    let id = try await submit(parts, "otx-1", user: "new", trusted: false)
    #expect(await parts.storage.item(id)?.status == .verified)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "new")
    #expect(await parts.storage.entitlements(userId: "old").isEmpty)
    #expect(await parts.storage.events(userId: "new").map(\.kind).contains("transferred"))
  }

  @Test("transfer_if_inactive: a lapsed owner's purchase moves on fresh evidence only")
  func transferIfInactive() async throws {
    let parts = WorkerParts(transferPolicy: .transferIfInactive)
    let lapsed = VerifiedChain.monthly(
      "otx-1", purchasedAtMs: parts.now - 60 * WorkerParts.day, expiresAtMs: parts.now - 30 * WorkerParts.day,
      willRenew: false, asOfMs: parts.now)
    parts.gateway.answer("otx-1", .success(lapsed))
    parts.gateway.state.withLock { $0.claimEvidence["otx-1@stale"] = Self.stale }
    _ = try await submit(parts, "otx-1", user: "old", trusted: nil)
    let stale = try await submit(parts, "otx-1@stale", user: "new", trusted: nil)
    #expect(await parts.storage.item(stale)?.status == .rejected)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "old")
    let fresh = try await submit(parts, "otx-1", user: "new", trusted: nil)
    #expect(await parts.storage.item(fresh)?.status == .verified)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "new")
  }

  @Test("under keep_with_original_owner the refusal names the policy, whatever the evidence")
  func keepPolicy() async throws {
    let parts = parts(.keepWithOriginalOwner)
    _ = try await submit(parts, "otx-1", user: "owner", trusted: nil)
    let id = try await submit(parts, "otx-1", user: "other", trusted: nil)
    #expect(
      await parts.storage.item(id)?.outcome
        == "this purchase is bound to another user (transfer policy keep_with_original_owner)")
  }

  @Test("a gateway that says nothing of a submission's evidence is taken as a bare identifier")
  func unknownEvidence() {
    let claim = Claim(PurchaseSubmission(userId: "u", store: .appStore, receipt: "1"), evidence: nil)
    #expect(!claim.evidence.isVouchedByStore && claim.evidence.transferRefusal != nil)
    #expect(claim.isCallerTrusted)
  }
}
