import AmazonAppstore
import AsyncHTTPClient
import Foundation
import Logging
import TollgateCore
import TollgateCrypto
import TollgateWorker

/// The worker's door to the Amazon Appstore: Real-Time Notifications over SNS (the SNS signature
/// verified before anything is stored, subscriptions confirmed), a submitted receipt id with the
/// Amazon user id that owns it, and the authoritative state of a receipt from the Receipt
/// Verification Service mapped to Core. Amazon keys its data by receipt: each receipt is one
/// chain, and Core links a subscription's receipts across renewals and tier changes by their
/// parent product. RVS's errors are classified in one place (`RVSError.classified`).
public final class AmazonGateway: StoreGateway {
  public let store: Store = .amazon
  let apps: [AmazonApp]
  let limiter: StoreCallLimiter
  public var callLimiter: StoreCallLimiter? { limiter }
  let nowMs: @Sendable () -> Int64
  let logger: Logger
  let admission: AmazonSNSAdmission

  /// - Parameters:
  ///   - environment: where the shared secrets named by the settings are read from.
  ///   - concurrency: RVS calls in flight at once.
  ///   - budget: the deployment's budget for the store's calls (`StoreCallBudget.configured`), if any.
  public init(
    settings: AmazonSettings, environment: [String: String], httpClient: HTTPClient, concurrency: Int,
    budget: StoreCallBudget? = nil, nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) throws {
    apps = try settings.apps.map {
      try AmazonApp(settings: $0, environment: environment, httpClient: httpClient, logger: logger)
    }
    limiter = StoreCallLimiter(permits: concurrency, budget: budget)
    self.nowMs = nowMs
    self.logger = logger
    admission = AmazonSNSAdmission(apps: settings.apps, httpClient: httpClient, logger: logger)
  }

  /// The app named `appPackageName`; with none, the only app if there is exactly one.
  func app(_ appPackageName: String?) -> AmazonApp? {
    guard let appPackageName else { return apps.count == 1 ? apps[0] : nil }
    return apps.first { $0.appPackageName == appPackageName }
  }

  public func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference {
    guard let receiptId = submission.receiptId?.trimmingCharacters(in: .whitespacesAndNewlines), !receiptId.isEmpty,
      let userId = submission.amazonUserId?.trimmingCharacters(in: .whitespacesAndNewlines), !userId.isEmpty
    else {
      throw .final("an Amazon purchase needs its receipt_id and the amazon_user_id that owns it")
    }
    guard let app = app(submission.appId) else {
      throw .final(
        submission.appId.map { "Amazon app \($0) is not configured" }
          ?? "app_id is required: several Amazon apps are configured")
    }
    return ChainReference(
      store: .amazon, appId: app.appPackageName, lookupId: receiptId, purchaseId: receiptId,
      environment: app.settings.usesSandbox ? .sandbox : nil, storeUserId: userId,
      // RVS answers for a receipt only with the Amazon user id that owns it, but Amazon signs
      // nothing the buyer alone holds: both ids can be read (GetSubscription, the database) and
      // copied, so they move a purchase bound to another user only for an admin (issue 25 item 7).
      claimEvidence: .vouchedWithoutSignature(Self.transferAdvice))
  }

  /// Why a `submit` caller's Amazon receipt id and user id cannot move a purchase another user owns.
  static let transferAdvice =
    "Amazon signs nothing a buyer holds, and a receipt id with its Amazon user id can be copied by anyone "
    + "who has seen them; an operator moves it (SubmitPurchase from an admin caller)"

  public func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain {
    guard let app = app(reference.appId) else { throw .final("Amazon app \(reference.appId) is not configured") }
    guard let userId = reference.storeUserId else {
      throw .final("no Amazon user id is known for this receipt: it cannot be read from RVS")
    }
    let receiptId = reference.lookupId
    let askedAt = nowMs()
    let body: Data
    do throws(RVSError) {
      body = try await limiter.withPermit(call: "verifyReceiptId") { () async throws(RVSError) in
        try await app.rvs.verifyReceiptId(
          sharedSecret: app.sharedSecret, userId: userId, receiptId: receiptId, sandbox: app.settings.usesSandbox)
      }
    } catch {
      throw error.classified
    }
    let receipt: RVSReceipt
    do {
      receipt = try JSONDecoder().decode(RVSReceipt.self, from: body)
    } catch {
      throw StoreFailure(.transient, "Amazon RVS answered a body that is not a receipt", cause: error)
    }
    if let owner = receipt.userId, owner != userId {
      throw .final("RVS says the receipt belongs to another Amazon user: possibly a receipt submitted by someone else")
    }
    let mapping = AmazonMapping(
      receipt: receipt, environment: app.settings.usesSandbox ? .sandbox : .production, asOfMs: askedAt)
    if mapping.history.environment == .sandbox && !app.settings.usesSandbox && !app.settings.allowTestTransactions {
      throw .final(
        "a test transaction (testTransaction is set) is refused: allowTestTransactions is off for \(app.appPackageName)"
      )
    }
    if mapping.failsClosed {
      logger.warning(
        "an Amazon receipt grants nothing by its own answer",
        metadata: [
          "app.id": "\(app.appPackageName)", "amazon.notes": "\(Self.loggable(mapping.notes))",
          "subscription.purchase_id": "\(Store.amazon.loggable(receiptId))",
        ])
    }
    return chain(mapping, receiptId: receiptId, app: app, userId: userId, body: body, askedAt: askedAt)
  }

  public func reference(for subscription: StoredSubscription) -> ChainReference? {
    guard let app = app(subscription.appId) else { return nil }
    return ChainReference(
      store: .amazon, appId: app.appPackageName, lookupId: subscription.purchaseId,
      purchaseId: subscription.purchaseId, environment: subscription.history.environment,
      storeUserId: subscription.storeUserId)
  }

  /// The verified chain a mapped receipt describes, with RVS's answer kept as evidence by its
  /// SHA-256 (RVS answers are not signed: the evidence carries no signing time).
  private func chain(
    _ mapping: AmazonMapping, receiptId: String, app: AmazonApp, userId: String, body: Data, askedAt: Int64
  ) -> VerifiedChain {
    let history = mapping.history
    let sha = SHA256.hash(Array(body)).hexString
    let rows = history.transactions.map {
      TransactionRow($0, environment: history.environment, payloadSHA256: sha, signedAtMs: nil)
    }
    return VerifiedChain(
      store: .amazon, appId: app.appPackageName, purchaseId: receiptId, history: history, transactions: rows,
      evidence: VerificationEvidence(
        source: "amazon_rvs", environment: history.environment,
        payloads: [.init(kind: "rvs_receipt", id: receiptId, sha256: sha, signedAtMs: nil)], verifiedAtMs: askedAt),
      appAccountToken: nil, storeUserId: userId)
  }
}

extension AmazonGateway {
  /// The mapping's notes as logs may hold them: every receipt id they name shortened
  /// (`Store.loggable`).
  static func loggable(_ notes: [AmazonMappingNote]) -> String {
    let text = "\(notes)"
    guard let pattern = try? NSRegularExpression(pattern: #"receiptId: "([^"]*)""#) else {
      return "\(notes.count) notes"
    }
    var result = ""
    var rest = text.startIndex
    for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      guard let whole = Range(match.range, in: text), let id = Range(match.range(at: 1), in: text) else { continue }
      result += text[rest..<whole.lowerBound] + #"receiptId: ""# + Store.amazon.loggable(String(text[id])) + #"""#
      rest = whole.upperBound
    }
    return result + text[rest...]
  }
}
