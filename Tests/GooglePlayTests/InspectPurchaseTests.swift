import Foundation
import GooglePlay
import Testing
import TollgateTesting

@Suite(
  "inspect google-purchase: the Play Billing signature",
  .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct InspectPurchaseTests {
  static func inspect(_ directory: String, signature: String, data: [UInt8]? = nil) throws
    -> GooglePlayInspection.Report
  {
    let verifier = try GooglePlayInspection.licensingKeyVerifier(
      try GoogleVectors.text("\(directory)/license_public_key.b64"))
    return try GooglePlayInspection.inspectPurchase(
      data: try data ?? Array(GoogleVectors.data("\(directory)/inapp_purchase_data.json")),
      signatureBase64: try GoogleVectors.text("\(directory)/\(signature)"), verifier: verifier)
  }

  @Test("valid signatures are valid and echo the purchase data in Google's names")
  func valid() throws {
    let goIAP = try Self.inspect("play-billing-signature", signature: "signature_valid.b64")
    #expect(goIAP.isValid)
    #expect((goIAP.payload as? [String: Any])?["orderId"] as? String == "GPA.xxxx-xxxx-xxxx-xxxxx")
    let real = try Self.inspect("play-billing-signature-voltrue2", signature: "signature.b64")
    #expect(real.isValid)
    #expect((real.payload as? [String: Any])?["autoRenewing"] as? Bool == true)
    #expect(real.summary == nil)
  }

  @Test("a wrong signature, or the same data with one more byte, is a signature_mismatch")
  func invalid() throws {
    let wrong = try Self.inspect("play-billing-signature", signature: "signature_invalid.b64")
    #expect(wrong.problem?.code == "signature_mismatch")
    let data = Array(try GoogleVectors.data("play-billing-signature-voltrue2/inapp_purchase_data.json"))
    let reserialized = try Self.inspect(
      "play-billing-signature-voltrue2", signature: "signature.b64", data: data + Array("\n".utf8))
    #expect(reserialized.problem?.code == "signature_mismatch")
  }

  @Test("the licensing key is read as base64 or PEM; an unreadable key, signature or data throws Unreadable")
  func inputs() throws {
    let key = try GoogleVectors.text("play-billing-signature/license_public_key.b64")
    var pem = "-----BEGIN PUBLIC KEY-----\n"
    var rest = Substring(key)
    while !rest.isEmpty {
      pem += rest.prefix(64) + "\n"
      rest = rest.dropFirst(64)
    }
    pem += "-----END PUBLIC KEY-----\n"
    let verifier = try GooglePlayInspection.licensingKeyVerifier(pem)
    let data = Array(try GoogleVectors.data("play-billing-signature/inapp_purchase_data.json"))
    let signature = try GoogleVectors.text("play-billing-signature/signature_valid.b64")
    #expect(
      try GooglePlayInspection.inspectPurchase(data: data, signatureBase64: signature, verifier: verifier).isValid)

    #expect(throws: GooglePlayInspection.Unreadable.self) { try GooglePlayInspection.licensingKeyVerifier("AAAA") }
    #expect(throws: GooglePlayInspection.Unreadable.self) {
      try GooglePlayInspection.inspectPurchase(data: data, signatureBase64: "not base64!", verifier: verifier)
    }
    #expect(throws: GooglePlayInspection.Unreadable.self) {
      try GooglePlayInspection.inspectPurchase(
        data: Array("plain".utf8), signatureBase64: signature, verifier: verifier)
    }
  }
}
