import AsyncHTTPClient
import Foundation
import GooglePlay
import Logging
import TollgateCore
import TollgateCrypto
import TollgateWorker

/// The worker's door to Google Play: Real-time developer notifications over Pub/Sub push
/// (authenticated before they are stored), a submitted purchase token turned into a chain to
/// read, the authoritative state of a purchase from the Android Publisher API (subscriptionsv2,
/// else the one-time product) mapped to Core, acknowledgements, and the voided purchases sweep.
/// Google's errors are classified in one place (`AndroidPublisherError.classified`).
public final class GooglePlayGateway: StoreGateway {
  public let store: Store = .googlePlay
  let apps: [GooglePlayApp]
  let limiter: StoreCallLimiter
  public var callLimiter: StoreCallLimiter? { limiter }
  let nowMs: @Sendable () -> Int64
  let logger: Logger
  let admission: GooglePushAdmission
  /// Samples the log lines of voided notifications Google does not confirm (per app).
  let unconfirmedVoids = LogSampler(perMinute: 10)

  /// Builds the API client of every configured app.
  /// - Parameters:
  ///   - environment: where service-account keys named by the settings are read from.
  ///   - concurrency: Google Play calls in flight at once.
  ///   - budget: the deployment's budget for the store's calls (`StoreCallBudget.configured`), if any.
  public init(
    settings: GooglePlaySettings, environment: [String: String], httpClient: HTTPClient, concurrency: Int,
    budget: StoreCallBudget? = nil, nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) throws {
    apps = try settings.apps.map {
      try GooglePlayApp(settings: $0, environment: environment, httpClient: httpClient, nowMs: nowMs, logger: logger)
    }
    limiter = StoreCallLimiter(permits: concurrency, budget: budget)
    self.nowMs = nowMs
    self.logger = logger
    admission = Self.admission(apps: settings.apps, httpClient: httpClient, nowMs: nowMs, logger: logger)
  }

  /// One door per distinct push audience and service account; one key cache per JWKS URL. An app
  /// with no push service account gets no door unless it accepts any (`acceptAnyPushServiceAccount`):
  /// a configuration that skipped validation admits none of its pushes rather than everyone's.
  private static func admission(
    apps: [GooglePlayAppSettings], httpClient: HTTPClient, nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) -> GooglePushAdmission {
    var caches: [String: GoogleKeySetCache] = [:]
    var doors: [String: GooglePushAdmission.Door] = [:]
    var order: [String] = []
    for app in apps {
      guard let audience = app.pushAudience, app.pushServiceAccount != nil || app.acceptAnyPushServiceAccount else {
        continue
      }
      let url = app.jwksURL ?? GoogleKeySetCache.Config.googleURL
      let cache =
        caches[url]
        ?? GoogleKeySetCache(config: .init(url: url), httpClient: httpClient, now: nowMs, logger: logger)
      caches[url] = cache
      let key = "\(audience)\u{0}\(app.pushServiceAccount ?? "")\u{0}\(url)"
      if doors[key] == nil {
        order.append(key)
        let verifier = OIDCTokenVerifier(
          config: .init(audience: audience, serviceAccountEmail: app.pushServiceAccount))
        doors[key] = GooglePushAdmission.Door(
          packageNames: [],
          authenticator: PubSubPushAuthenticator(verifier: verifier, keys: cache, now: nowMs, logger: logger))
      }
      doors[key]?.packageNames.insert(app.packageName)
    }
    return GooglePushAdmission(doors: order.compactMap { doors[$0] })
  }

  /// The app for `packageName`; with none, the only app if there is exactly one.
  func app(packageName: String?) -> GooglePlayApp? {
    guard let packageName else { return apps.count == 1 ? apps[0] : nil }
    return apps.first { $0.packageName == packageName }
  }

  public func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain {
    guard let app = app(packageName: reference.appId) else {
      throw .final("package \(reference.appId) is not configured")
    }
    let token = reference.lookupId
    do throws(AndroidPublisherError) {
      let askedAt = nowMs()
      do {
        let body = try await limiter.withPermit(call: "subscriptionsv2.get") { () async throws(AndroidPublisherError) in
          try await app.api.subscriptionV2(packageName: app.packageName, purchaseToken: token)
        }
        let resource = try decode(SubscriptionPurchaseV2.self, body)
        let mapping = GooglePlayMapping(
          subscription: resource, purchaseToken: token, packageName: app.packageName, asOfMs: askedAt)
        return try chain(
          mapping, app: app, body: body, kind: "subscription_v2", askedAt: askedAt,
          acknowledgement: acknowledgement(resource, app: app))
      } catch let error where error.code == .notFound {
        // Not a subscription: a one-time product, or a purchase Google does not know yet.
        let body = try await limiter.withPermit(call: "productsv2.get") { () async throws(AndroidPublisherError) in
          try await app.api.productV2(packageName: app.packageName, purchaseToken: token)
        }
        let resource = try decode(ProductPurchaseV2.self, body)
        let mapping = GooglePlayMapping(
          productV2: resource, purchaseToken: token, packageName: app.packageName, asOfMs: askedAt)
        return try chain(
          mapping, app: app, body: body, kind: "product_v2", askedAt: askedAt,
          acknowledgement: acknowledgement(resource, app: app))
      }
    } catch {
      throw error.classified
    }
  }

  public func reference(for subscription: StoredSubscription) -> ChainReference? {
    guard let app = app(packageName: subscription.appId) else { return nil }
    return ChainReference(
      store: .googlePlay, appId: app.packageName, lookupId: subscription.purchaseId,
      purchaseId: subscription.purchaseId, environment: subscription.history.environment)
  }

  private func decode<Resource: Decodable>(_ type: Resource.Type, _ body: Data) throws(AndroidPublisherError)
    -> Resource
  {
    do {
      return try JSONDecoder().decode(type, from: body)
    } catch {
      throw AndroidPublisherError(code: .invalidResponse, message: "undecodable \(type)", cause: error)
    }
  }

  /// The verified chain a mapped resource describes, with the answer kept as evidence by its
  /// SHA-256 (Google's answers are not signed: the evidence carries no signing time).
  private func chain(
    _ mapping: GooglePlayMapping, app: GooglePlayApp, body: Data, kind: String, askedAt: Int64,
    acknowledgement: PendingAcknowledgement?
  ) throws(AndroidPublisherError) -> VerifiedChain {
    if mapping.history.environment == .sandbox && !app.settings.allowTestPurchases {
      // A license tester's purchase costs nothing: it entitles only where the operator allows it.
      throw AndroidPublisherError(
        code: .badRequest,
        message: "a test purchase (testPurchase is set) is refused: allowTestPurchases is off for \(app.packageName)")
    }
    if mapping.failsClosed {
      logger.warning(
        "a Google Play purchase grants nothing by its own answer",
        metadata: [
          "app.id": "\(app.packageName)", "google.notes": "\(mapping.notes)",
          "subscription.purchase_id": "\(Store.googlePlay.loggable(mapping.history.purchaseId))",
        ])
    }
    let history = mapping.history
    let sha = SHA256.hash(Array(body)).hexString
    let rows = history.transactions.map {
      TransactionRow($0, environment: history.environment, payloadSHA256: sha, signedAtMs: nil)
    }
    return VerifiedChain(
      store: .googlePlay, appId: app.packageName, purchaseId: history.purchaseId, history: history,
      transactions: rows,
      evidence: VerificationEvidence(
        source: "android_publisher_api", environment: history.environment,
        payloads: [.init(kind: kind, id: "\(history.purchaseId.prefix(16))", sha256: sha, signedAtMs: nil)],
        verifiedAtMs: askedAt),
      appAccountToken: mapping.obfuscatedExternalAccountId, acknowledgement: acknowledgement)
  }
}
