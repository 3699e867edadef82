import GooglePlay
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("Play Billing signature", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct PlayBillingSignatureTests {
  private func load(_ directory: String) throws -> (PlayBillingSignatureVerifier, [UInt8]) {
    let verifier = try PlayBillingSignatureVerifier(
      licensingKeyBase64: try Vectors.string("google/\(directory)/license_public_key.b64"))
    return (verifier, try Vectors.bytes("google/\(directory)/inapp_purchase_data.json"))
  }

  @Test("go-iap's valid signature verifies; its \"signature is invalid\" case is a mismatch")
  func goIAPVectors() throws {
    let (verifier, data) = try load("play-billing-signature")
    let valid = try Vectors.string("google/play-billing-signature/signature_valid.b64")
    let invalid = try Vectors.string("google/play-billing-signature/signature_invalid.b64")
    #expect(throws: Never.self) { try verifier.verify(purchaseData: data, signatureBase64: valid).get() }
    #expect(throws: PlayBillingSignatureVerifier.Failure.signatureMismatch) {
      try verifier.verify(purchaseData: data, signatureBase64: invalid).get()
    }
  }

  @Test("a real Play-signed 2016 subscription purchase verifies over its exact bytes, and not with one byte changed")
  func realPlaySignedPurchase() throws {
    let (verifier, data) = try load("play-billing-signature-voltrue2")
    let signature = try Vectors.string("google/play-billing-signature-voltrue2/signature.b64")
    #expect(throws: Never.self) { try verifier.verify(purchaseData: data, signatureBase64: signature).get() }
    for index in [0, data.count / 2, data.count - 1] {
      var changed = data
      changed[index] ^= 0x01
      #expect(throws: PlayBillingSignatureVerifier.Failure.signatureMismatch) {
        try verifier.verify(purchaseData: changed, signatureBase64: signature).get()
      }
    }
    // Re-serialized JSON (here: a trailing newline) is other bytes, so it fails too.
    #expect(throws: PlayBillingSignatureVerifier.Failure.signatureMismatch) {
      try verifier.verify(purchaseData: data + [0x0A], signatureBase64: signature).get()
    }
  }

  @Test("a signature that is not base64 and a licensing key that is not a key are typed errors")
  func malformedInputs() throws {
    let (verifier, data) = try load("play-billing-signature")
    #expect(throws: PlayBillingSignatureVerifier.Failure.malformedSignature) {
      try verifier.verify(purchaseData: data, signatureBase64: "not base64!").get()
    }
    #expect { try PlayBillingSignatureVerifier(licensingKeyBase64: "AAAA") } throws: {
      ($0 as? CryptoError)?.code == .malformedKey
    }
  }
}
