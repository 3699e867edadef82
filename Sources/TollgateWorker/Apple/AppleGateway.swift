import AppStore
import Foundation
import Logging
import TollgateCore
import TollgateCrypto
import TollgateStorage

/// The worker's door to Apple: turns submitted evidence into a transaction id, and reads the
/// authoritative state of a purchase chain from the App Store Server API, verifying every
/// signed payload before it is believed.
final class AppleGateway: Sendable {
  /// What a submission points at.
  struct Identified: Sendable {
    var app: AppleApp
    var transactionId: String
    var environment: StoreEnvironment?
    /// Known when the evidence was a signed transaction.
    var originalTransactionId: String? = nil
  }

  /// The verified state of one purchase chain.
  struct Chain: Sendable {
    var app: AppleApp
    var originalTransactionId: String
    var history: SubscriptionHistory
    var transactions: [TransactionRow]
    var evidence: VerificationEvidence
    var appAccountToken: String?
  }

  private let apps: [AppleApp]
  private let limiter: AsyncSemaphore
  private let nowMs: @Sendable () -> Int64
  private let logger: Logger

  init(apps: [AppleApp], concurrency: Int, nowMs: @escaping @Sendable () -> Int64, logger: Logger) {
    self.apps = apps
    self.limiter = AsyncSemaphore(permits: concurrency)
    self.nowMs = nowMs
    self.logger = logger
  }

  /// The app for `bundleId`; with no bundle id, the only app if there is exactly one.
  func app(bundleId: String?) -> AppleApp? {
    guard let bundleId else { return apps.count == 1 ? apps[0] : nil }
    return apps.first { $0.bundleId == bundleId }
  }

  /// Identifies what a SubmitPurchase `receipt` names: a signed transaction (JWS), a transaction
  /// id, or a base64 app receipt (PKCS#7, else resolved through verifyReceipt).
  func identify(receipt: String, appId: String?) async throws(WorkerFailure) -> Identified {
    let receipt = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
    if receipt.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
      return try identifySignedTransaction(receipt, appId: appId)
    }
    guard let app = app(bundleId: appId) else { throw .rejected(unknownApp(appId)) }
    if !receipt.isEmpty, receipt.allSatisfy(\.isNumber) {
      return Identified(app: app, transactionId: receipt, environment: nil)
    }
    switch app.receiptVerifier.verify(base64: receipt) {
    case .valid(let parsed):
      guard let id = parsed.transactionIdForLookup else { throw .rejected("the app receipt holds no in-app purchase") }
      return Identified(app: app, transactionId: id, environment: nil)
    case .invalid(let error) where error.code == .malformedPayload || error.code == .malformedBase64:
      return try await identifyThroughVerifyReceipt(receipt, app: app)
    case .invalid(let error):
      throw .rejected("app receipt: \(error.code) (\(error.message))")
    }
  }

  private func identifySignedTransaction(_ jws: String, appId: String?) throws(WorkerFailure) -> Identified {
    let claimed = claimedBundleId(jws)
    guard let app = app(bundleId: claimed ?? appId) ?? app(bundleId: appId) else { throw .rejected(unknownApp(claimed ?? appId)) }
    switch app.verifier.verifyTransaction(jws) {
    case .valid(let transaction):
      guard let id = transaction.transactionId else { throw .rejected("the signed transaction has no transactionId") }
      return Identified(
        app: app, transactionId: id, environment: StoreEnvironment(appStore: transaction.environment),
        originalTransactionId: transaction.originalTransactionId)
    case .invalid(let error):
      throw .rejected("signed transaction: \(error.code) (\(error.message))")
    }
  }

  private func identifyThroughVerifyReceipt(_ receipt: String, app: AppleApp) async throws(WorkerFailure) -> Identified {
    let outcome: VerifyReceiptClient.Outcome
    do {
      outcome = try await limited { () async throws(AppStoreAPIError) in try await app.verifyReceipt.verify(receiptData: receipt) }
    } catch {
      throw .store(error)
    }
    guard let response = VerifyReceiptResponse.decode(outcome.body) else {
      throw .store(AppStoreAPIError(code: .invalidResponse, message: "undecodable verifyReceipt answer"))
    }
    if response.isRetryable {
      throw .store(AppStoreAPIError(code: .serverError, message: "verifyReceipt status \(response.status)"))
    }
    guard response.status == 0 else { throw .rejected("verifyReceipt status \(response.status): \(response.typedStatus)") }
    let environment: StoreEnvironment = outcome.endpoint == .sandbox ? .sandbox : .production
    guard app.accepts(environment) else { throw .rejected(environmentRefusal(environment, app: app)) }
    if let bundleId = response.bundleId, bundleId != app.bundleId {
      throw .rejected("the receipt belongs to \(bundleId), not \(app.bundleId)")
    }
    let latest = response.transactions.max { ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0) }
    guard let id = latest?.originalTransactionId ?? latest?.transactionId else {
      throw .rejected("the receipt holds no in-app purchase")
    }
    return Identified(app: app, transactionId: id, environment: environment)
  }

  /// Reads and verifies the chain that `transactionId` belongs to.
  func fetchChain(app: AppleApp, transactionId: String, environment hint: StoreEnvironment?) async throws(WorkerFailure) -> Chain {
    let environments = app.environments(hint: hint)
    for (index, environment) in environments.enumerated() {
      guard let api = app.api(environment) else { throw .rejected(environmentRefusal(environment, app: app)) }
      do {
        return try await fetchChain(app: app, api: api, transactionId: transactionId, environment: environment)
      } catch .store(let error) where error.code == .notFound && index < environments.count - 1 {
        continue  // a sandbox purchase looked up in production first
      }
    }
    throw .rejected("transaction \(transactionId) is unknown to the App Store")
  }

  private func fetchChain(app: AppleApp, api: AppStoreServerAPIClient, transactionId: String, environment: StoreEnvironment)
    async throws(WorkerFailure) -> Chain
  {
    let info = try await call { () async throws(AppStoreAPIError) in try await api.getTransactionInfo(transactionId: transactionId) }
    guard let signed = info.signedTransactionInfo else { throw .store(.init(code: .invalidResponse, message: "no signedTransactionInfo")) }
    let first = try verified(app.verifier.verifyTransaction(signed), what: "transaction \(transactionId)")
    guard let originalTransactionId = first.originalTransactionId else {
      throw .store(.init(code: .invalidResponse, message: "transaction without originalTransactionId"))
    }
    let statuses = try await call { () async throws(AppStoreAPIError) in
      try await api.getAllSubscriptionStatuses(transactionId: originalTransactionId)
    }
    let last = statuses.data?.flatMap { $0.lastTransactions ?? [] }.first { $0.originalTransactionId == originalTransactionId }
    var evidence: [VerificationEvidence.Payload] = []
    var renewal: JWSRenewalInfoDecodedPayload?
    if let signedRenewal = last?.signedRenewalInfo {
      let payload = try verified(app.verifier.verifyRenewalInfo(signedRenewal), what: "renewal info of \(originalTransactionId)")
      renewal = payload
      evidence.append(.init(kind: "renewal_info", id: originalTransactionId, sha256: SHA256.hash(signedRenewal).hexString, signedAtMs: payload.signedDate))
    }
    let signedHistory = try await call { () async throws(AppStoreAPIError) in
      try await api.getAllTransactions(transactionId: originalTransactionId)
    }
    var transactions: [JWSTransactionDecodedPayload] = []
    var rows: [TransactionRow] = []
    for signedTransaction in signedHistory.isEmpty ? [signed] : signedHistory {
      let transaction = try verified(app.verifier.verifyTransaction(signedTransaction), what: "a transaction of \(originalTransactionId)")
      guard transaction.originalTransactionId == originalTransactionId, let id = transaction.transactionId else { continue }
      transactions.append(transaction)
      let sha = SHA256.hash(signedTransaction).hexString
      evidence.append(.init(kind: "transaction", id: id, sha256: sha, signedAtMs: transaction.signedDate))
      rows.append(
        TransactionRow(
          storeTransactionId: id, productId: transaction.productId ?? "", purchasedAtMs: transaction.purchaseDate ?? 0,
          expiresAtMs: transaction.expiresDate, revokedAtMs: transaction.revocationDate,
          revocationReason: transaction.revocationReason.map(String.init), offerType: transaction.offerType.map(String.init),
          environment: StoreEnvironment(appStore: transaction.environment), payloadSHA256: sha, signedAtMs: transaction.signedDate))
    }
    let now = nowMs()
    let history = SubscriptionHistory(
      appStoreOriginalTransactionId: originalTransactionId, transactions: transactions, renewalInfo: renewal, asOfMs: now)
    guard app.accepts(history.environment) else { throw .rejected(environmentRefusal(history.environment, app: app)) }
    return Chain(
      app: app, originalTransactionId: originalTransactionId, history: history, transactions: rows,
      evidence: VerificationEvidence(source: "app_store_server_api", environment: environment, payloads: evidence, verifiedAtMs: now),
      appAccountToken: transactions.compactMap(\.appAccountToken).last)
  }

  private func call<T: Sendable>(_ body: @Sendable () async throws(AppStoreAPIError) -> T) async throws(WorkerFailure) -> T {
    do {
      return try await limited(body)
    } catch {
      throw .store(error)
    }
  }

  private func limited<T: Sendable>(_ body: @Sendable () async throws(AppStoreAPIError) -> T) async throws(AppStoreAPIError) -> T {
    await limiter.wait()
    defer { Task { await limiter.signal() } }
    return try await body()
  }

  /// A payload from Apple that fails verification is not believed, and not a reason to change
  /// anything: it is retried later like any store trouble.
  private func verified<T>(_ result: VerificationResult<T>, what: String) throws(WorkerFailure) -> T {
    switch result {
    case .valid(let payload): return payload
    case .invalid(let error):
      logger.error("a signed payload from the App Store API failed verification", metadata: ["apple.what": "\(what)", "error": "\(error.code)"])
      throw .store(AppStoreAPIError(code: .invalidResponse, message: "\(what): \(error.code)"))
    }
  }

  private func claimedBundleId(_ jws: String) -> String? {
    guard case .success(let parsed) = JWS.parse(jws),
      let object = try? JSONSerialization.jsonObject(with: Data(parsed.payload)) as? [String: Any]
    else { return nil }
    return object["bundleId"] as? String
  }

  private func unknownApp(_ bundleId: String?) -> String {
    bundleId.map { "\($0) is not a configured App Store app" } ?? "app_id is required: several App Store apps are configured"
  }

  private func environmentRefusal(_ environment: StoreEnvironment, app: AppleApp) -> String {
    "a \(environment.rawValue) purchase is not accepted by \(app.bundleId) (\(app.settings.environment) app)"
  }
}
