import AppStore
import Foundation
import TollgateCore
import TollgateCrypto
import TollgateWorker

extension AppStoreGateway {
  /// Reads and verifies the chain that `transactionId` belongs to.
  func fetchChain(app: AppleApp, transactionId: String, environment hint: StoreEnvironment?) async throws(AppleFailure)
    -> VerifiedChain
  {
    let environments = app.environments(hint: hint)
    var notFound: AppStoreAPIError?
    for environment in environments {
      guard let api = app.api(environment) else { throw .rejected(environmentRefusal(environment, app: app)) }
      do {
        return try await fetchChain(app: app, api: api, transactionId: transactionId, environment: environment)
      } catch .store(let error) where error.code == .notFound {
        notFound = error  // a sandbox purchase looked up in production first, or one Apple does not know yet
      }
    }
    // Unknown in every environment the app accepts: "not found", which the worker retries while
    // the purchase is young (Apple's own advice for 4040010 right after a purchase).
    throw .store(
      AppStoreAPIError(
        code: .notFound,
        message: "transaction \(transactionId) is unknown to the App Store (\(environments.map(\.rawValue).joined(separator: ", ")))",
        httpStatus: notFound?.httpStatus, apiErrorCode: notFound?.apiErrorCode))
  }

  private func fetchChain(
    app: AppleApp, api: AppStoreServerAPIClient, transactionId: String, environment: StoreEnvironment
  )
    async throws(AppleFailure) -> VerifiedChain
  {
    let info = try await call { () async throws(AppStoreAPIError) in
      try await api.getTransactionInfo(transactionId: transactionId)
    }
    guard let signed = info.signedTransactionInfo else {
      throw .store(.init(code: .invalidResponse, message: "no signedTransactionInfo"))
    }
    let first = try verified(app.verifier.verifyTransaction(signed), what: "transaction \(transactionId)")
    guard let originalTransactionId = first.originalTransactionId else {
      throw .store(.init(code: .invalidResponse, message: "transaction without originalTransactionId"))
    }
    let statuses = try await call { () async throws(AppStoreAPIError) in
      try await api.getAllSubscriptionStatuses(transactionId: originalTransactionId)
    }
    let last = statuses.data?.flatMap { $0.lastTransactions ?? [] }.first {
      $0.originalTransactionId == originalTransactionId
    }
    var evidence: [VerificationEvidence.Payload] = []
    var renewal: JWSRenewalInfoDecodedPayload?
    if let signedRenewal = last?.signedRenewalInfo {
      let payload = try verified(
        app.verifier.verifyRenewalInfo(signedRenewal), what: "renewal info of \(originalTransactionId)")
      renewal = payload
      evidence.append(
        .init(
          kind: "renewal_info", id: originalTransactionId, sha256: SHA256.hash(signedRenewal).hexString,
          signedAtMs: payload.signedDate))
    }
    let signedHistory = try await call { () async throws(AppStoreAPIError) in
      try await api.getAllTransactions(transactionId: originalTransactionId)
    }
    var transactions: [JWSTransactionDecodedPayload] = []
    var rows: [TransactionRow] = []
    for signedTransaction in signedHistory.isEmpty ? [signed] : signedHistory {
      let transaction = try verified(
        app.verifier.verifyTransaction(signedTransaction), what: "a transaction of \(originalTransactionId)")
      guard transaction.originalTransactionId == originalTransactionId, let id = transaction.transactionId else {
        continue
      }
      transactions.append(transaction)
      let sha = SHA256.hash(signedTransaction).hexString
      evidence.append(.init(kind: "transaction", id: id, sha256: sha, signedAtMs: transaction.signedDate))
      rows.append(
        TransactionRow(
          storeTransactionId: id, productId: transaction.productId ?? "", purchasedAtMs: transaction.purchaseDate ?? 0,
          expiresAtMs: transaction.expiresDate, revokedAtMs: transaction.revocationDate,
          revocationReason: transaction.revocationReason.map(String.init),
          offerType: transaction.offerType.map(String.init),
          environment: StoreEnvironment(appStore: transaction.environment), payloadSHA256: sha,
          signedAtMs: transaction.signedDate))
    }
    let now = nowMs()
    let history = SubscriptionHistory(
      appStoreOriginalTransactionId: originalTransactionId, transactions: transactions, renewalInfo: renewal,
      asOfMs: now)
    guard app.accepts(history.environment) else { throw .rejected(environmentRefusal(history.environment, app: app)) }
    return VerifiedChain(
      store: .appStore, appId: app.bundleId, purchaseId: originalTransactionId, history: history, transactions: rows,
      evidence: VerificationEvidence(
        source: "app_store_server_api", environment: environment, payloads: evidence, verifiedAtMs: now),
      appAccountToken: transactions.compactMap(\.appAccountToken).last)
  }

  func call<T: Sendable>(_ body: @Sendable () async throws(AppStoreAPIError) -> T) async throws(AppleFailure) -> T {
    do {
      return try await limited(body)
    } catch {
      throw .store(error)
    }
  }

  func limited<T: Sendable>(_ body: @Sendable () async throws(AppStoreAPIError) -> T) async throws(AppStoreAPIError)
    -> T
  {
    try await limiter.withPermit(body)
  }

  /// A payload from Apple that fails verification is not believed, and not a reason to change
  /// anything: it is retried later like any store trouble.
  private func verified<T>(_ result: VerificationResult<T>, what: String) throws(AppleFailure) -> T {
    switch result {
    case .valid(let payload): return payload
    case .invalid(let error):
      logger.error(
        "a signed payload from the App Store API failed verification",
        metadata: ["apple.what": "\(what)", "error": "\(error.code)"])
      throw .store(AppStoreAPIError(code: .invalidResponse, message: "\(what): \(error.code)"))
    }
  }
}
