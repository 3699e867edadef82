import TollgateContract

/// How long each field of a SubmitPurchase may be, per store: what the stores produce, with room
/// to grow (issue 25). A longer field is no store's, so it is refused with INVALID_ARGUMENT
/// before anything is stored: a `submit` key can no longer park a quarter of a megabyte of
/// made-up bytes in the inbox per call whatever the store.
enum EvidenceLimits {
  /// An App Store signed transaction (compact JWS whose header carries the x5c chain of three
  /// certificates): 4-8 KB from Apple.
  static let appleSignedTransaction = 32 * 1024
  /// An App Store transaction id: up to 20 digits today.
  static let appleTransactionId = 64
  /// An App Store app receipt (base64 PKCS#7): it grows with the purchase history, to some
  /// hundred KB for a long-renewing subscriber.
  static let appleAppReceipt = 256 * 1024
  /// A Google Play purchase token: about 150-250 characters.
  static let googlePurchaseToken = 2 * 1024
  /// Play Billing's purchase data (a JSON object of about 0.5-1 KB) and its signature (base64 of
  /// an RSA-2048 signature: 344 characters).
  static let googlePurchaseData = 8 * 1024
  static let googleSignature = 1024
  /// An Amazon receipt id and Amazon user id: about 50-120 characters each.
  static let amazonReceiptId = 1024
  static let amazonUserId = 1024
  /// Product ids and app ids (bundle ids, package names, Amazon SKUs) of every store.
  static let productId = 256
  static let appId = 256

  /// What an App Store `receipt` is, told the way the worker's gateway tells it.
  enum AppleReceiptKind: Equatable {
    case signedTransaction
    case transactionId
    case appReceipt
  }

  static func appleReceiptKind(_ receipt: String) -> AppleReceiptKind {
    var dots = 0
    var digitsOnly = true
    for byte in receipt.utf8 {
      if byte == UInt8(ascii: ".") { dots += 1 }
      if byte < UInt8(ascii: "0") || byte > UInt8(ascii: "9") { digitsOnly = false }
    }
    if dots == 2 { return .signedTransaction }
    return digitsOnly ? .transactionId : .appReceipt
  }

  /// The first field of `request` longer than its store allows, said as a caller can act on it.
  static func problem(_ request: Tollgate_V1_SubmitPurchaseRequest) -> String? {
    var fields: [(name: String, value: String, limit: Int)] = [
      ("product_id", request.productID, productId), ("app_id", request.appID, appId),
    ]
    switch request.store {
    case .appStore:
      switch appleReceiptKind(request.receipt) {
      case .signedTransaction:
        fields.append(("receipt (a signed transaction)", request.receipt, appleSignedTransaction))
      case .transactionId: fields.append(("receipt (a transaction id)", request.receipt, appleTransactionId))
      case .appReceipt: fields.append(("receipt (an app receipt)", request.receipt, appleAppReceipt))
      }
    case .googlePlay:
      fields += [
        ("purchase_token", request.purchaseToken, googlePurchaseToken),
        ("google_purchase_data", request.googlePurchaseData, googlePurchaseData),
        ("google_signature", request.googleSignature, googleSignature),
      ]
    case .amazon:
      fields += [
        ("receipt_id", request.receiptID, amazonReceiptId), ("amazon_user_id", request.amazonUserID, amazonUserId),
      ]
    default:
      break
    }
    // Evidence of another store is not stored; it may still not be a flood.
    let others = [
      request.receipt, request.purchaseToken, request.receiptID, request.amazonUserID, request.googlePurchaseData,
      request.googleSignature,
    ]
    if others.contains(where: { $0.utf8.count > appleAppReceipt }) {
      return "purchase evidence is longer than \(appleAppReceipt) bytes"
    }
    for field in fields where field.value.utf8.count > field.limit {
      return "\(field.name) is longer than \(field.limit) bytes, more than the store produces"
    }
    return nil
  }
}
