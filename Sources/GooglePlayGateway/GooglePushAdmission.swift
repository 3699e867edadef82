import Foundation
import GooglePlay
import TollgateCore
import TollgateCrypto
import TollgateWorker

/// Decides, before anything is stored, what becomes of a Pub/Sub push to `/notifications/google`:
/// its OIDC token is verified first (each configured app's audience and push service account;
/// Google's keys), and only an authenticated Real-time developer notification for an app whose
/// push credentials it carries is stored, deduplicated by Pub/Sub's `messageId`.
///
/// - No or malformed token: 401. A token that fails verification: 403. Google's keys cannot be
///   fetched and none are cached: 503, so Pub/Sub redelivers later.
/// - Authenticated but not a DeveloperNotification (or for a package this worker does not
///   serve): acknowledged without being stored, so Pub/Sub does not redeliver it forever.
struct GooglePushAdmission: Sendable {
  struct Door: Sendable {
    /// The apps whose push subscription uses this audience and service account.
    var packageNames: Set<String>
    var authenticator: PubSubPushAuthenticator
  }

  let doors: [Door]

  func admit(_ request: NotificationRequest) async -> NotificationAdmission {
    var refusal: (status: Int, reason: String)?
    var admittedFor: Set<String>?
    for door in doors {
      switch await door.authenticator.authenticate(authorization: request.authorization) {
      case .success:
        admittedFor = door.packageNames
      case .failure(let error):
        let status =
          error.isTransient ? 503 : (error.code == .missingToken || error.code == .malformedToken ? 401 : 403)
        // The most actionable refusal wins: a retry (503) over a wrong token over a missing one.
        if refusal == nil || status == 503 || (status == 403 && refusal?.status == 401) {
          refusal = (status, "Pub/Sub push token refused: \(error.code): \(error.message)")
        }
      }
      if admittedFor != nil { break }
    }
    guard let packageNames = admittedFor else {
      return .refuse(status: refusal?.status ?? 401, reason: refusal?.reason ?? "no Google Play app takes pushes")
    }
    let envelope: PubSubPushEnvelope
    do {
      envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(request.body))
    } catch {
      return .acknowledge(reason: "not a Pub/Sub push body")
    }
    let notification: DeveloperNotification
    do throws(DeveloperNotificationError) {
      notification = try envelope.developerNotification()
    } catch {
      return .acknowledge(reason: "not a DeveloperNotification: \(error)")
    }
    guard let packageName = notification.packageName, packageNames.contains(packageName) else {
      return .acknowledge(
        reason:
          "a notification for package \(notification.packageName ?? "(none)"), which this push subscription does not serve"
      )
    }
    // Pub/Sub redelivers a message under the same id; without one, the body itself is the key.
    let key = envelope.message?.messageId ?? "sha256:\(SHA256.hash(request.body).hexString)"
    return .store(dedupeKey: key)
  }
}
