import AppStore
import Foundation
import TollgateCore
import TollgateCrypto
import TollgateWorker

/// What a submission points at.
struct IdentifiedPurchase: Sendable {
  var app: AppleApp
  var transactionId: String
  var environment: StoreEnvironment?
  /// Known when the evidence was a signed transaction.
  var originalTransactionId: String? = nil
  /// What the submitted evidence proves about who bought it.
  var evidence: ClaimEvidence
}

extension AppStoreGateway {
  /// Identifies what a SubmitPurchase `receipt` names: a signed transaction (JWS), a transaction
  /// id, or a base64 app receipt (PKCS#7, else resolved through verifyReceipt).
  func identify(receipt: String, appId: String?) async throws(AppleFailure) -> IdentifiedPurchase {
    let receipt = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
    if CompactJWS.segmentCount(receipt) == 3 {
      // Chain and signature checks run on the blocking pool, not the cooperative one.
      return try await BlockingWork.run { () throws(AppleFailure) in
        try self.identifySignedTransaction(receipt, appId: appId)
      }
    }
    guard let app = app(bundleId: appId) else { throw .rejected(unknownApp(appId)) }
    if !receipt.isEmpty, receipt.allSatisfy(\.isNumber) {
      return IdentifiedPurchase(
        app: app, transactionId: receipt, environment: nil, evidence: .identifierOnly(Self.bareTransactionIdAdvice))
    }
    let verifier = app.receiptVerifier
    switch await checked({ verifier.verify(base64: receipt) }) {
    case .valid(let parsed):
      guard let id = parsed.transactionIdForLookup else { throw .rejected("the app receipt holds no in-app purchase") }
      return IdentifiedPurchase(
        app: app, transactionId: id, environment: nil,
        evidence: evidence(signedAtMs: parsed.creationDateMs, of: "app receipt", app: app))
    case .invalid(let error) where error.code == .malformedPayload || error.code == .malformedBase64:
      return try await identifyThroughVerifyReceipt(receipt, app: app)
    case .invalid(let error):
      throw .rejected("app receipt: \(error.code) (\(error.message))")
    }
  }

  private func identifySignedTransaction(_ jws: String, appId: String?) throws(AppleFailure) -> IdentifiedPurchase {
    let claimed = claimedBundleId(jws)
    guard let app = app(bundleId: claimed ?? appId) ?? app(bundleId: appId) else {
      throw .rejected(unknownApp(claimed ?? appId))
    }
    switch limiter.measured(.verify, { app.verifier.verifyTransaction(jws) }) {
    case .valid(let transaction):
      guard let id = transaction.transactionId else { throw .rejected("the signed transaction has no transactionId") }
      return IdentifiedPurchase(
        app: app, transactionId: id, environment: StoreEnvironment(appStore: transaction.environment),
        originalTransactionId: transaction.originalTransactionId,
        evidence: evidence(signedAtMs: transaction.signedDate, of: "signed transaction", app: app))
    case .invalid(let error):
      throw .rejected("signed transaction: \(error.code) (\(error.message))")
    }
  }

  private func identifyThroughVerifyReceipt(_ receipt: String, app: AppleApp) async throws(AppleFailure)
    -> IdentifiedPurchase
  {
    let outcome: VerifyReceiptClient.Outcome
    do {
      outcome = try await limited("verifyReceipt") { () async throws(AppStoreAPIError) in
        try await app.verifyReceipt.verify(receiptData: receipt)
      }
    } catch {
      throw .store(error)
    }
    guard let response = VerifyReceiptResponse.decode(outcome.body) else {
      throw .store(AppStoreAPIError(code: .invalidResponse, message: "undecodable verifyReceipt answer"))
    }
    if response.isRetryable {
      throw .store(AppStoreAPIError(code: .serverError, message: "verifyReceipt status \(response.status)"))
    }
    if response.typedStatus == .sharedSecretMismatch {
      throw .misconfigured(
        "verifyReceipt status 21004: the shared secret configured for \(app.bundleId) is not the app's")
    }
    guard response.status == 0 else {
      throw .rejected("verifyReceipt status \(response.status): \(response.typedStatus)")
    }
    let environment: StoreEnvironment = outcome.endpoint == .sandbox ? .sandbox : .production
    guard app.accepts(environment) else { throw .rejected(environmentRefusal(environment, app: app)) }
    if let bundleId = response.bundleId, bundleId != app.bundleId {
      throw .rejected("the receipt belongs to \(bundleId), not \(app.bundleId)")
    }
    let latest = response.transactions.max { ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0) }
    guard let id = latest?.originalTransactionId ?? latest?.transactionId else {
      throw .rejected("the receipt holds no in-app purchase")
    }
    return IdentifiedPurchase(
      app: app, transactionId: id, environment: environment,
      evidence: evidence(signedAtMs: response.receiptCreationDate, of: "app receipt", app: app))
  }

  /// Why a bare transaction id is not enough, and what to submit instead.
  static let bareTransactionIdAdvice =
    "a bare transaction id does not prove who bought it: submit the signed transaction (jwsRepresentation) "
    + "or the app receipt"

  /// Evidence Apple signed at `signedAtMs`: enough to move a purchase bound to another user only
  /// within the app's `transferFreshnessMs` of its signing (a payload copied long ago is not).
  func evidence(signedAtMs: Int64?, of what: String, app: AppleApp) -> ClaimEvidence {
    Self.evidence(signedAtMs: signedAtMs, of: what, freshnessMs: app.settings.transferFreshnessMs, nowMs: nowMs())
  }

  static func evidence(signedAtMs: Int64?, of what: String, freshnessMs: Int64, nowMs: Int64) -> ClaimEvidence {
    .dated(signedAtMs, freshnessMs: freshnessMs, nowMs: nowMs, undated: "the \(what) carries no signing date") {
      age, window in
      "the \(what) was signed \(age) ago, more than the \(window) a transfer accepts (transferFreshnessMs): "
        + "submit one fresh from the buyer's device (after AppStore.sync(), or a refreshed receipt)"
    }
  }

  func claimedBundleId(_ jws: String) -> String? {
    guard case .success(let parsed) = JWS.parse(jws),
      let object = try? JSONSerialization.jsonObject(with: Data(parsed.payload)) as? [String: Any]
    else { return nil }
    return object["bundleId"] as? String
  }
}
