import AppStore
import Foundation
import TollgateCore
import TollgateCrypto
import TollgateWorker

/// App Store Server Notifications, V2 (signed) and V1 (legacy, with the shared secret).
extension AppStoreGateway {
  static let v2Route = "app_store.v2"
  static let v1Route = "app_store.v1"

  /// Both routes verify a notification before it is stored: a forged or foreign body costs a
  /// signature check, never disk, and a notification is deduplicated by the UUID its verified
  /// payload carries, so a forgery that claims a genuine notification's UUID cannot make the genuine
  /// delivery a "duplicate".
  public var notificationRoutes: [NotificationRoute] {
    [
      NotificationRoute(
        name: Self.v2Route, path: "/notifications/apple/v2", maximumBodyBytes: NotificationBodyPrecheck.maxBodyBytes
      ) { request in
        await self.admitV2(request.body)
      },
      NotificationRoute(name: Self.v1Route, path: "/notifications/apple/v1") { request in
        self.admitV1(request.body)
      },
    ]
  }

  /// A V2 body is stored only when its signed payload verifies for a configured app (its chain to
  /// Apple's roots, the app, the environment), under its verified notification UUID. The body's
  /// size and its JWS header's shape are checked first, on the caller's thread; the payload is
  /// decoded and the chain and signatures checked on the blocking pool (`BlockingWork`), so forged
  /// bodies never occupy the cooperative pool.
  func admitV2(_ body: [UInt8]) async -> NotificationAdmission {
    await Self.admitV2(body) { signedPayload in
      await BlockingWork.run { self.verifyForAdmission(body, signedPayload: signedPayload) }
    }
  }

  /// `NotificationBodyPrecheck`, then `verify` (given the body's `signedPayload`) only for a body
  /// that passes it: 413 for a body larger than Apple's, 400 for one that is not a compact JWS,
  /// 403 for a header Apple would not sign with.
  static func admitV2(
    _ body: [UInt8], verify: (_ signedPayload: String) async -> NotificationAdmission
  ) async -> NotificationAdmission {
    let signedPayload: String
    do throws(VerificationError) {
      signedPayload = try NotificationBodyPrecheck.signedPayload(ofBody: body)
    } catch {
      if error.code == .oversized, body.count > NotificationBodyPrecheck.maxBodyBytes {
        return .refuse(status: 413, reason: "larger than any App Store notification")
      }
      if error.code == .invalidJWTFormat || error.code == .malformedBase64 {
        return .refuse(status: 400, reason: "not a signed V2 notification: \(error.code)")
      }
      return .refuse(status: 403, reason: "the signed payload's header is not Apple's: \(error.code)")
    }
    return await verify(signedPayload)
  }

  /// The costly part of `admitV2`: the payload decoded, the app found, the chain and every
  /// signature checked.
  private func verifyForAdmission(_ body: [UInt8], signedPayload: String) -> NotificationAdmission {
    let claimed = Self.unverifiedV2Facts(signedPayload: signedPayload)
    guard claimed.isWellFormed else { return .refuse(status: 400, reason: "not a signed V2 notification") }
    guard let app = app(bundleId: claimed.bundleId) else {
      return .refuse(status: 403, reason: "a notification for an app that is not configured")
    }
    switch limiter.measured(.verify, { app.verifier.verifyNotificationContents(signedPayload) }) {
    case .valid(let verified):
      return .store(dedupeKey: verified.notification.notificationUUID ?? SHA256.hash(body).hexString)
    case .invalid(let error):
      return .refuse(status: 403, reason: "the signed payload does not verify: \(error.code)")
    }
  }

  /// A V1 body is stored only when it carries the app's shared secret.
  func admitV1(_ body: [UInt8]) -> NotificationAdmission {
    guard (try? JSONSerialization.jsonObject(with: Data(body))) is [String: Any] else {
      return .refuse(status: 400, reason: "not a JSON V1 notification")
    }
    guard let app = app(bundleId: Self.unverifiedV1BundleId(body)), let secret = app.sharedSecret else {
      return .refuse(status: 403, reason: "a V1 notification for an app without a configured shared secret")
    }
    switch NotificationV1.verify(body: Data(body), sharedSecret: secret, bundleId: app.bundleId) {
    case .valid: return .store(dedupeKey: SHA256.hash(body).hexString)
    case .invalid(let error): return .refuse(status: 403, reason: "the V1 notification does not verify: \(error.code)")
    }
  }

  func verifyV2(_ payload: [UInt8]) throws(AppleFailure) -> NotificationVerdict {
    let claimed = Self.unverifiedV2Facts(payload)
    guard let app = app(bundleId: claimed.bundleId) else {
      throw .rejected("notification for an app that is not configured (\(claimed.bundleId ?? "no bundle id"))")
    }
    let verified: VerifiedNotification
    switch limiter.measured(.verify, { app.verifier.verifyNotificationBody(payload) }) {
    case .valid(let notification): verified = notification
    case .invalid(let error):
      logger.warning("a notification failed verification", metadata: ["error": "\(error.code)"])
      throw .rejected("notification: \(error.code) (\(error.message))")
    }
    guard let transactionId = verified.transaction?.originalTransactionId ?? verified.renewalInfo?.originalTransactionId
    else {
      return .informational(outcome: "informational: \(verified.notification.notificationType ?? "unknown")")
    }
    let environment = verified.transaction.map { StoreEnvironment(appStore: $0.environment) }
    let reason = "notification \(verified.notification.notificationType ?? "")/\(verified.notification.subtype ?? "")"
    return .chainChanged(
      ChainReference(
        store: .appStore, appId: app.bundleId, lookupId: transactionId, purchaseId: transactionId,
        environment: environment, notSignedBeforeMs: verified.notification.signedDate),
      reason: reason, signed: signedChain(verified, app: app, originalTransactionId: transactionId))
  }

  func verifyV1(_ payload: [UInt8]) throws(AppleFailure) -> NotificationVerdict {
    let claimed = Self.unverifiedV1BundleId(payload)
    guard let app = app(bundleId: claimed), let secret = app.sharedSecret else {
      throw .rejected("V1 notification for an app without a configured shared secret")
    }
    let notification: NotificationV1
    switch NotificationV1.verify(body: Data(payload), sharedSecret: secret, bundleId: app.bundleId) {
    case .valid(let value): notification = value
    case .invalid(let error): throw .rejected("V1 notification: \(error.code)")
    }
    guard
      let latest = notification.unifiedReceipt?.transactions.max(by: {
        ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0)
      }),
      let id = latest.originalTransactionId ?? latest.transactionId
    else {
      return .informational(outcome: "informational V1")
    }
    return .chainChanged(
      ChainReference(
        store: .appStore, appId: app.bundleId, lookupId: id, purchaseId: latest.originalTransactionId, environment: nil),
      reason: "notification v1 \(notification.notificationType ?? "")", signed: nil)
  }

  /// What a verified V2 notification's own signed payloads prove about its chain (its transaction
  /// and renewal info), for when the Server API cannot be read; nil when it carries neither or
  /// comes from an environment the app does not accept.
  private func signedChain(_ verified: VerifiedNotification, app: AppleApp, originalTransactionId: String)
    -> VerifiedChain?
  {
    let data = verified.notification.data
    var transactions: [(jws: String, payload: JWSTransactionDecodedPayload)] = []
    if let jws = data?.signedTransactionInfo, let transaction = verified.transaction {
      transactions = [(jws, transaction)]
    }
    var renewal: (jws: String, payload: JWSRenewalInfoDecodedPayload)?
    if let jws = data?.signedRenewalInfo, let info = verified.renewalInfo,
      info.originalTransactionId == originalTransactionId
    {
      renewal = (jws, info)
    }
    guard !transactions.isEmpty || renewal != nil else { return nil }
    let environment = StoreEnvironment(appStore: verified.transaction?.environment ?? verified.renewalInfo?.environment)
    guard app.accepts(environment) else { return nil }
    let notificationEvidence = VerificationEvidence.Payload(
      kind: "notification", id: verified.notification.notificationUUID ?? "",
      sha256: SHA256.hash(data?.signedTransactionInfo ?? data?.signedRenewalInfo ?? "").hexString,
      signedAtMs: verified.notification.signedDate)
    return Self.chain(
      app: app, originalTransactionId: originalTransactionId, transactions: transactions, renewal: renewal,
      source: "notification", environment: environment, nowMs: nowMs(), extraEvidence: [notificationEvidence])
  }

  struct V2Facts {
    var isWellFormed = false
    var notificationUUID: String?
    var bundleId: String?
  }

  /// What a V2 body claims about itself, before any verification: for deduplication and routing.
  static func unverifiedV2Facts(_ bytes: [UInt8]) -> V2Facts {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
      let signed = object["signedPayload"] as? String
    else { return V2Facts() }
    return unverifiedV2Facts(signedPayload: signed)
  }

  /// `unverifiedV2Facts(_:)` from the body's `signedPayload`.
  static func unverifiedV2Facts(signedPayload signed: String) -> V2Facts {
    var facts = V2Facts()
    guard case .success(let parts) = CompactJWS.split(signed),
      let claims = try? JSONSerialization.jsonObject(with: Data(parts.payload)) as? [String: Any]
    else { return facts }
    facts.isWellFormed = true
    facts.notificationUUID = claims["notificationUUID"] as? String
    let data = (claims["data"] as? [String: Any]) ?? (claims["summary"] as? [String: Any])
    facts.bundleId = data?["bundleId"] as? String
    return facts
  }

  static func unverifiedV1BundleId(_ bytes: [UInt8]) -> String? {
    ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any])?["bid"] as? String
  }
}
