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
}

extension AppStoreGateway {
  /// Identifies what a SubmitPurchase `receipt` names: a signed transaction (JWS), a transaction
  /// id, or a base64 app receipt (PKCS#7, else resolved through verifyReceipt).
  func identify(receipt: String, appId: String?) async throws(AppleFailure) -> IdentifiedPurchase {
    let receipt = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
    if receipt.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
      return try identifySignedTransaction(receipt, appId: appId)
    }
    guard let app = app(bundleId: appId) else { throw .rejected(unknownApp(appId)) }
    if !receipt.isEmpty, receipt.allSatisfy(\.isNumber) {
      return IdentifiedPurchase(app: app, transactionId: receipt, environment: nil)
    }
    switch app.receiptVerifier.verify(base64: receipt) {
    case .valid(let parsed):
      guard let id = parsed.transactionIdForLookup else { throw .rejected("the app receipt holds no in-app purchase") }
      return IdentifiedPurchase(app: app, transactionId: id, environment: nil)
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
    switch app.verifier.verifyTransaction(jws) {
    case .valid(let transaction):
      guard let id = transaction.transactionId else { throw .rejected("the signed transaction has no transactionId") }
      return IdentifiedPurchase(
        app: app, transactionId: id, environment: StoreEnvironment(appStore: transaction.environment),
        originalTransactionId: transaction.originalTransactionId)
    case .invalid(let error):
      throw .rejected("signed transaction: \(error.code) (\(error.message))")
    }
  }

  private func identifyThroughVerifyReceipt(_ receipt: String, app: AppleApp) async throws(AppleFailure)
    -> IdentifiedPurchase
  {
    let outcome: VerifyReceiptClient.Outcome
    do {
      outcome = try await limited { () async throws(AppStoreAPIError) in
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
    return IdentifiedPurchase(app: app, transactionId: id, environment: environment)
  }

  func claimedBundleId(_ jws: String) -> String? {
    guard case .success(let parsed) = JWS.parse(jws),
      let object = try? JSONSerialization.jsonObject(with: Data(parsed.payload)) as? [String: Any]
    else { return nil }
    return object["bundleId"] as? String
  }
}
