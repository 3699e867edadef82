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
        message:
          "transaction \(transactionId) is unknown to the App Store (\(environments.map(\.rawValue).joined(separator: ", ")))",
        httpStatus: notFound?.httpStatus, apiErrorCode: notFound?.apiErrorCode))
  }

  private func fetchChain(
    app: AppleApp, api: AppStoreServerAPIClient, transactionId: String, environment: StoreEnvironment
  )
    async throws(AppleFailure) -> VerifiedChain
  {
    let info = try await call("getTransactionInfo") { () async throws(AppStoreAPIError) in
      try await api.getTransactionInfo(transactionId: transactionId)
    }
    guard let signed = info.signedTransactionInfo else {
      throw .store(.init(code: .invalidResponse, message: "no signedTransactionInfo"))
    }
    let first = try verified(
      await checked { app.verifier.verifyTransaction(signed) }, what: "transaction \(transactionId)")
    guard let originalTransactionId = first.originalTransactionId else {
      throw .store(.init(code: .invalidResponse, message: "transaction without originalTransactionId"))
    }
    if let type = first.type, first.typedType != .autoRenewableSubscription {
      return try oneTimeChain(
        app: app, originalTransactionId: originalTransactionId, type: type, signed: (signed, first),
        environment: environment)
    }
    let statuses = try await call("getAllSubscriptionStatuses") { () async throws(AppStoreAPIError) in
      try await api.getAllSubscriptionStatuses(transactionId: originalTransactionId)
    }
    let last = statuses.data?.flatMap { $0.lastTransactions ?? [] }.first {
      $0.originalTransactionId == originalTransactionId
    }
    var renewal: (jws: String, payload: JWSRenewalInfoDecodedPayload)?
    if let signedRenewal = last?.signedRenewalInfo {
      let payload = try verified(
        await checked { app.verifier.verifyRenewalInfo(signedRenewal) },
        what: "renewal info of \(originalTransactionId)")
      renewal = (signedRenewal, payload)
    }
    let signedHistory = try await call("getTransactionHistory") { () async throws(AppStoreAPIError) in
      try await api.getAllTransactions(transactionId: originalTransactionId)
    }
    // Every transaction's chain and signature, checked on the blocking pool (a long history is
    // dozens of them), not the cooperative one.
    let history = signedHistory.isEmpty ? [signed] : signedHistory
    let transactions = try await BlockingWork.run {
      () throws(AppleFailure) -> [(jws: String, payload: JWSTransactionDecodedPayload)] in
      var transactions: [(jws: String, payload: JWSTransactionDecodedPayload)] = []
      for signedTransaction in history {
        let transaction = try self.verified(
          self.limiter.measured(.verify) { app.verifier.verifyTransaction(signedTransaction) },
          what: "a transaction of \(originalTransactionId)")
        transactions.append((signedTransaction, transaction))
      }
      return transactions
    }
    let chain = Self.chain(
      app: app, originalTransactionId: originalTransactionId, transactions: transactions, renewal: renewal,
      source: "app_store_server_api", environment: environment, nowMs: nowMs())
    guard app.accepts(chain.history.environment) else {
      throw .rejected(environmentRefusal(chain.history.environment, app: app))
    }
    return chain
  }

  /// A purchase that is no auto-renewable subscription (a non-consumable, say): Get All
  /// Subscription Statuses has nothing about it and it has no renewals, so Get Transaction Info's
  /// answer, which carries any revocation, is the whole chain. Without `expiresDate` it never
  /// expires.
  private func oneTimeChain(
    app: AppleApp, originalTransactionId: String, type: String,
    signed: (jws: String, payload: JWSTransactionDecodedPayload), environment: StoreEnvironment
  ) throws(AppleFailure) -> VerifiedChain {
    logger.debug(
      "App Store purchase read from its transaction alone",
      metadata: [
        "apple.original_transaction_id": "\(Store.appStore.loggable(originalTransactionId))", "apple.type": "\(type)",
      ])
    let chain = Self.chain(
      app: app, originalTransactionId: originalTransactionId, transactions: [signed], renewal: nil,
      source: "app_store_server_api", environment: environment, nowMs: nowMs())
    guard app.accepts(chain.history.environment) else {
      throw .rejected(environmentRefusal(chain.history.environment, app: app))
    }
    return chain
  }

  /// The verified chain that signed payloads describe: the transactions of
  /// `originalTransactionId` among `transactions` and the renewal info, each kept as evidence by
  /// its SHA-256 and signing time. Used for the Server API's full answer and for what a
  /// notification's own payloads prove.
  static func chain(
    app: AppleApp, originalTransactionId: String,
    transactions signed: [(jws: String, payload: JWSTransactionDecodedPayload)],
    renewal: (jws: String, payload: JWSRenewalInfoDecodedPayload)?, source: String, environment: StoreEnvironment,
    nowMs: Int64, extraEvidence: [VerificationEvidence.Payload] = []
  ) -> VerifiedChain {
    var evidence: [VerificationEvidence.Payload] = extraEvidence
    if let renewal {
      evidence.append(
        .init(
          kind: "renewal_info", id: originalTransactionId, sha256: SHA256.hash(renewal.jws).hexString,
          signedAtMs: renewal.payload.signedDate))
    }
    var transactions: [JWSTransactionDecodedPayload] = []
    var rows: [TransactionRow] = []
    for (jws, transaction) in signed {
      guard transaction.originalTransactionId == originalTransactionId, let id = transaction.transactionId else {
        continue
      }
      transactions.append(transaction)
      let sha = SHA256.hash(jws).hexString
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
    let history = SubscriptionHistory(
      appStoreOriginalTransactionId: originalTransactionId, transactions: transactions,
      renewalInfo: renewal?.payload, asOfMs: nowMs)
    return VerifiedChain(
      store: .appStore, appId: app.bundleId, purchaseId: originalTransactionId, history: history, transactions: rows,
      evidence: VerificationEvidence(source: source, environment: environment, payloads: evidence, verifiedAtMs: nowMs),
      appAccountToken: transactions.compactMap(\.appAccountToken).last)
  }

  /// A check of Apple's signed data: on the blocking pool (`BlockingWork`), never the cooperative
  /// one, its CPU time charged to the worker's `verify` stage.
  func checked<T: Sendable>(_ check: @escaping @Sendable () -> T) async -> T {
    await BlockingWork.run { self.limiter.measured(.verify, check) }
  }

  /// `name`: the App Store API's call, for the call-duration histogram.
  func call<T: Sendable>(_ name: String, _ body: @Sendable () async throws(AppStoreAPIError) -> T)
    async throws(AppleFailure) -> T
  {
    do {
      return try await limited(name, body)
    } catch {
      throw .store(error)
    }
  }

  func limited<T: Sendable>(_ name: String, _ body: @Sendable () async throws(AppStoreAPIError) -> T)
    async throws(AppStoreAPIError) -> T
  {
    try await limiter.withPermit(call: name, body)
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
