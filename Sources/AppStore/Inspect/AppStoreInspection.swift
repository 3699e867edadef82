import Foundation
import TollgateCrypto

/// The pure half of `tollgate inspect apple-jws|apple-receipt|apple-notification`: verifies an
/// input and describes it as a JSON document
/// `{"verdict": "valid"|"invalid", "error": CODE|null, "message": …, "header": {…}, "payload": {…}}`.
/// The payload keeps Apple's field names; x5c certificates are summarised, never printed.
public enum AppStoreInspection {
  public enum Kind: String, Sendable, CaseIterable {
    case transaction
    case renewalInfo = "renewal-info"
    case appTransaction = "app-transaction"
    case notification
  }

  /// Inspects a compact JWS of the given kind.
  public static func inspectJWS(_ compact: String, kind: Kind, verifier: SignedDataVerifier) -> String {
    let compact = compact.trimmingCharacters(in: .whitespacesAndNewlines)
    let error: VerificationError?
    switch kind {
    case .transaction: error = verifier.verifyTransaction(compact).error
    case .renewalInfo: error = verifier.verifyRenewalInfo(compact).error
    case .appTransaction: error = verifier.verifyAppTransaction(compact).error
    case .notification: error = verifier.verifyNotificationContents(compact).error
    }
    var document: [String: Any] = [:]
    if case .success(let jws) = JWS.parse(compact) {
      document["header"] = summarisedHeader(jws.headerJSON)
      document["payload"] = jsonObject(jws.payload)
    }
    return render(document, error: error)
  }

  /// Inspects base64 app receipt data; the payload is the parsed receipt.
  public static func inspectReceipt(_ base64: String, verifier: AppReceiptVerifier) -> String {
    let result = verifier.verify(base64: base64)
    var document: [String: Any] = [:]
    if let der = Base64.decode(base64, ignoringWhitespace: true),
      let receipt = AppReceiptVerifier.parseUnverified(der: der)
    {
      document["payload"] = describe(receipt)
    }
    return render(document, error: result.error)
  }

  // MARK: Rendering

  static func render(_ document: [String: Any], error: VerificationError?) -> String {
    var document = document
    document["verdict"] = error == nil ? "valid" : "invalid"
    document["error"] = error.map { $0.code.description } ?? NSNull()
    document["message"] = error?.message ?? NSNull()
    if document["header"] == nil { document["header"] = NSNull() }
    if document["payload"] == nil { document["payload"] = NSNull() }
    let data =
      (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  static func jsonObject(_ bytes: [UInt8]) -> Any? { try? JSONSerialization.jsonObject(with: Data(bytes)) }

  /// The header with each x5c entry replaced by subject, serial, validity and fingerprint.
  static func summarisedHeader(_ headerJSON: [UInt8]) -> Any? {
    guard var header = jsonObject(headerJSON) as? [String: Any] else { return nil }
    if let chain = header["x5c"] as? [Any] {
      header["x5c"] = chain.map { entry -> Any in
        guard let text = entry as? String, let der = Base64.decode(text), let cert = try? Certificate(der: der) else {
          return ["unparseable": true]
        }
        let validity = cert.validity
        return [
          "subject": cert.subject, "serialNumber": cert.serialNumberHex, "notBefore": validity.notBefore,
          "notAfter": validity.notAfter, "sha256": cert.sha256Fingerprint,
        ] as [String: Any]
      }
    }
    return header
  }

  static func describe(_ receipt: AppReceipt) -> [String: Any] {
    func compact(_ fields: [String: Any?]) -> [String: Any] { fields.compactMapValues { $0 } }
    return compact([
      "receiptType": receipt.receiptType, "bundleId": receipt.bundleId,
      "applicationVersion": receipt.applicationVersion,
      "originalApplicationVersion": receipt.originalApplicationVersion, "creationDate": receipt.creationDateMs,
      "expirationDate": receipt.expirationDateMs,
      "inApp": receipt.inAppPurchases.map { purchase in
        compact([
          "quantity": purchase.quantity, "productId": purchase.productId, "transactionId": purchase.transactionId,
          "originalTransactionId": purchase.originalTransactionId, "purchaseDate": purchase.purchaseDateMs,
          "originalPurchaseDate": purchase.originalPurchaseDateMs, "expiresDate": purchase.expiresDateMs,
          "webOrderLineItemId": purchase.webOrderLineItemId, "cancellationDate": purchase.cancellationDateMs,
          "isInIntroOfferPeriod": purchase.isInIntroOfferPeriod,
        ])
      },
    ])
  }
}
