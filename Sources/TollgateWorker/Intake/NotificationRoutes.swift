import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TollgateCrypto
import TollgateStorage

/// The HTTP endpoints the stores post notifications to. A notification is stored durably, and
/// answered 200 only then; a duplicate (same notificationUUID) is acknowledged but stored once.
/// Verification happens when the worker processes it: nothing here trusts the body.
enum NotificationRoutes {
  static let appleV2 = "app_store.v2"
  static let appleV1 = "app_store.v1"
  static let maximumBodyBytes = 1 << 20

  static func add(to router: Router<BasicRequestContext>, storage: SQLiteWorkerStorage, nowMs: @escaping @Sendable () -> Int64, logger: Logger) {
    router.post("/notifications/apple/v2") { request, _ -> Response in
      var request = request
      guard let body = try? await request.collectBody(upTo: maximumBodyBytes) else {
        return Response(status: .contentTooLarge)
      }
      let bytes = Array(body.readableBytesView)
      let facts = unverifiedAppleV2Facts(bytes)
      guard facts.isWellFormed else { return Response(status: .badRequest) }
      let key = "\(appleV2):" + (facts.notificationUUID ?? SHA256.hash(bytes).hexString)
      return await store(route: appleV2, key: key, bytes: bytes, storage: storage, nowMs: nowMs, logger: logger)
    }
    router.post("/notifications/apple/v1") { request, _ -> Response in
      var request = request
      guard let body = try? await request.collectBody(upTo: maximumBodyBytes) else {
        return Response(status: .contentTooLarge)
      }
      let bytes = Array(body.readableBytesView)
      guard (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any] else { return Response(status: .badRequest) }
      return await store(route: appleV1, key: "\(appleV1):" + SHA256.hash(bytes).hexString, bytes: bytes, storage: storage, nowMs: nowMs, logger: logger)
    }
  }

  private static func store(
    route: String, key: String, bytes: [UInt8], storage: SQLiteWorkerStorage, nowMs: @Sendable () -> Int64, logger: Logger
  ) async -> Response {
    do {
      let (id, duplicate) = try await storage.storeNotification(route: route, dedupeKey: key, payload: bytes, nowMs: nowMs())
      logger.info("notification stored", metadata: ["inbox.id": "\(id)", "notification.route": "\(route)", "notification.duplicate": "\(duplicate)"])
      return Response(status: .ok)
    } catch {
      // Not stored: the store must send it again.
      logger.error("storing a notification failed", metadata: ["error": "\(error)"])
      return Response(status: .internalServerError)
    }
  }

  struct AppleV2Facts {
    var isWellFormed = false
    var notificationUUID: String?
    var bundleId: String?
  }

  /// What a V2 body claims about itself, before any verification: for deduplication and routing.
  static func unverifiedAppleV2Facts(_ bytes: [UInt8]) -> AppleV2Facts {
    var facts = AppleV2Facts()
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
      let signed = object["signedPayload"] as? String
    else { return facts }
    let parts = signed.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
      let claims = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
    else { return facts }
    facts.isWellFormed = true
    facts.notificationUUID = claims["notificationUUID"] as? String
    let data = (claims["data"] as? [String: Any]) ?? (claims["summary"] as? [String: Any])
    facts.bundleId = data?["bundleId"] as? String
    return facts
  }

  static func unverifiedAppleV1BundleId(_ bytes: [UInt8]) -> String? {
    ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any])?["bid"] as? String
  }
}
