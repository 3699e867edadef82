import AppStore
import Foundation
import TollgateCore

/// Input: the body of a POST to one of Apple's notification routes. Read as V2 (the signedPayload
/// and its nested JWS verified against the fuzz roots) and as V1 (the shared secret, the
/// unified_receipt as a verifyReceipt response), and what verifies mapped to Core.
enum AppleNotificationHarness {
  static func run(_ bytes: [UInt8]) {
    if case .valid(let notification) = AppleFixtures.signedVerifier.verifyNotificationBody(bytes) {
      _ = StoreEvent(appStore: notification)
    }

    let body = Data(bytes)
    let v1 = NotificationV1.verify(body: body, sharedSecret: AppleFixtures.sharedSecret, bundleId: nil)
    if case .valid(let notification) = v1 {
      _ = notification.storeEnvironment
      _ = notification.eventKind
      _ = StoreEvent(appStoreV1: notification, eventId: "fuzz", receivedAtMs: AppleFixtures.nowMs)
      if let receipt = notification.unifiedReceipt {
        mapLegacy(receipt)
      }
    }
    // A V1 body's unified_receipt has the shape of a verifyReceipt answer: the same reader.
    if let response = VerifyReceiptResponse.decode(body) {
      mapLegacy(response)
    }
  }

  private static func mapLegacy(_ response: VerifyReceiptResponse) {
    _ = response.isRetryable
    for purchase in response.transactions {
      _ = StoreTransaction(appStoreLegacy: purchase)
    }
    for info in response.pendingRenewalInfo {
      _ = RenewalInfo(appStoreLegacy: info)
    }
    _ = SubscriptionHistory.appStoreLegacy(response, asOfMs: AppleFixtures.nowMs)
  }
}
