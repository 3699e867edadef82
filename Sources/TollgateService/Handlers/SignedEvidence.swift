import TollgateCore
import TollgateCrypto

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Whether a submission carries a store-signed payload, told at the service's edge without a
/// store call or a key (issue 25). The signature itself is checked by the worker, which holds each
/// app's trust anchors and licensing key; the service only tells a payload built like a signed
/// one (an Apple signed transaction whose header names ES256 and carries a certificate chain and
/// whose signature is 64 bytes; Play Billing purchase data for the submitted token with an
/// RSA-sized signature) from a bare id or token. Such a submission is counted in its own, larger
/// allowance per caller and user, so that unsigned submissions cannot hold it back. A forger can
/// build the shape, but a forged signature is rejected by the worker at its first look, without
/// asking the store, so it leaves the allowance within moments instead of waiting out the
/// not-found window; and each caller's allowance is its own.
enum SignedEvidence {
  static func isSigned(_ submission: PurchaseSubmission) -> Bool {
    switch submission.store {
    case .appStore:
      guard let receipt = submission.receipt else { return false }
      return isAppleSignedTransaction(receipt)
    case .googlePlay:
      guard let data = submission.googlePurchaseData, let signature = submission.googleSignature,
        let token = submission.purchaseToken
      else { return false }
      return isPlayBillingPurchase(data: data, signature: signature, purchaseToken: token)
    default:
      // Amazon signs nothing an app can hand over; grants are not submitted.
      return false
    }
  }

  private struct JWSHeader: Decodable {
    var alg: String
    var x5c: [String]
  }

  private struct SignedTransactionPayload: Decodable {
    var transactionId: String
  }

  /// An Apple signed transaction's shape, read by `CompactJWS` (the worker's reader): three
  /// base64url parts; a header that names ES256 and carries at least two DER certificates; a
  /// payload naming a transaction; a 64-byte signature.
  static func isAppleSignedTransaction(_ jws: String) -> Bool {
    guard EvidenceLimits.appleReceiptKind(jws) == .signedTransaction,
      jws.utf8.count <= EvidenceLimits.appleSignedTransaction
    else { return false }
    guard case .success(let parts) = CompactJWS.split(jws), parts.signature.count == 64,
      let header = try? JSONDecoder().decode(JWSHeader.self, from: Data(parts.header)), header.alg == "ES256",
      header.x5c.count >= 2,
      (try? JSONDecoder().decode(SignedTransactionPayload.self, from: Data(parts.payload))) != nil
    else { return false }
    return header.x5c.allSatisfy { certificate in
      guard let der = Base64.decode(certificate) else { return false }
      return der.count >= 64 && der.first == 0x30
    }
  }

  private struct PurchaseData: Decodable {
    var purchaseToken: String
  }

  /// Play Billing purchase data for `purchaseToken`, with a signature the size of an RSA
  /// signature (1024 to 4096 bits).
  static func isPlayBillingPurchase(data: String, signature: String, purchaseToken: String) -> Bool {
    guard let signatureBytes = Data(base64Encoded: signature), (128...512).contains(signatureBytes.count),
      let purchase = try? JSONDecoder().decode(PurchaseData.self, from: Data(data.utf8))
    else { return false }
    return purchase.purchaseToken == purchaseToken
  }

}
