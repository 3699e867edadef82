import TollgateCrypto

extension GooglePlayInspection {
  /// Inspects a Play Billing purchase: the RSA-SHA1 `signatureBase64` over the exact bytes of
  /// `purchaseData` (`INAPP_PURCHASE_DATA`, never re-serialized), under the app's licensing key.
  ///
  /// Invalid when the signature does not match (`signature_mismatch`). Throws `Unreadable` when
  /// the data is not a JSON object or the signature is not base64. There is no summary: the
  /// state of a purchase comes from the Android Publisher API, not from what a client sends.
  public static func inspectPurchase(
    data purchaseData: [UInt8], signatureBase64: String, verifier: PlayBillingSignatureVerifier
  ) throws(Unreadable) -> Report {
    guard let object = jsonObject(purchaseData) else { throw Unreadable("the purchase data is not a JSON object") }
    var report = Report(payload: object)
    switch verifier.verify(purchaseData: purchaseData, signatureBase64: signatureBase64) {
    case .success:
      break
    case .failure(.malformedSignature):
      throw Unreadable("the signature is not base64")
    case .failure(let failure):
      report.problem = Problem(code: "signature_mismatch", message: failure.description)
    }
    return report
  }

  /// The app's licensing key as Play Console shows it (base64 of an X.509 SubjectPublicKeyInfo),
  /// or the same as a PEM `PUBLIC KEY`.
  public static func licensingKeyVerifier(_ text: String) throws(Unreadable) -> PlayBillingSignatureVerifier {
    let base64 = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
    do {
      return try PlayBillingSignatureVerifier(licensingKeyBase64: base64)
    } catch {
      throw Unreadable("not a licensing key: \(error.message)")
    }
  }
}
