import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("RSA keys from JWK components, PEM certificates and RSA-SHA1 (Google's formats)")
struct GoogleKeyFormatsTests {
  @Test(
    "a key built from a JWK's n and e is the same key as in Google's PEM certificate of that kid",
    .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
  func jwkMatchesCertificate() throws {
    let directory = "google/oidc-google-auth-library-java/"
    let jwks = try JSONSerialization.jsonObject(
      with: Data(try Vectors.bytes(directory + "googleapis-oauth2-v3-certs-jwks-2020-04.json")))
    let pems = try JSONSerialization.jsonObject(
      with: Data(try Vectors.bytes(directory + "googleapis-oauth2-v1-certs-pem-2020-04.json")))
    let keys = try #require((jwks as? [String: Any])?["keys"] as? [[String: String]])
    let certificates = try #require(pems as? [String: String])
    #expect(keys.count == 2)
    for jwk in keys {
      let kid = try #require(jwk["kid"])
      let n = try #require(jwk["n"].flatMap { Base64URL.decode($0) })
      let e = try #require(jwk["e"].flatMap { Base64URL.decode($0) })
      let fromJWK = try RSAPublicKey(modulus: n, exponent: e)
      let pem = try #require(certificates[kid])
      let certificate = try Certificate(pem: pem)
      #expect(try fromJWK.derRepresentation() == certificate.rsaPublicKey().derRepresentation())
    }
  }

  @Test("a generated key's RS256 signature verifies with its public key rebuilt from components")
  func leadingZeroModulus() throws {
    let key = try RSAPrivateKey.generate(bits: 2048)
    let signature = try RS256.sign(Array("m".utf8), with: key)
    // The modulus sits at the end of the SubjectPublicKeyInfo: 256 bytes, then 02 03 01 00 01.
    let der = try key.publicKey.derRepresentation()
    let modulus = Array(der[der.count - 5 - 256..<der.count - 5])
    let rebuilt = try RSAPublicKey(modulus: [0, 0] + modulus, exponent: [1, 0, 1])
    #expect(RS256.isValidSignature(signature, for: Array("m".utf8), publicKey: rebuilt))
  }

  @Test("components that are no RSA key are refused with a typed error")
  func malformedComponents() {
    let modulus = [UInt8](repeating: 0xC5, count: 256)
    #expect { try RSAPublicKey(modulus: modulus, exponent: [1, 0, 0]) } throws: {
      ($0 as? CryptoError)?.code == .malformedKey
    }
    #expect { try RSAPublicKey(modulus: [0xC5, 0x01], exponent: [1, 0, 1]) } throws: {
      ($0 as? CryptoError)?.code == .malformedKey
    }
    #expect { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) } throws: {
      ($0 as? CryptoError)?.code == .invalidArgument
    }
    #expect { try Certificate(pem: "no certificate here") } throws: {
      ($0 as? CryptoError)?.code == .malformedCertificate
    }
  }

  @Test(
    "RSA-SHA1 verifies the Play Billing vector and refuses its invalid signature and changed bytes",
    .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
  func rsaSHA1() throws {
    let directory = "google/play-billing-signature/"
    let key = try RSAPublicKey(
      bytes: try #require(Base64.decode(try Vectors.trimmed(directory + "license_public_key.b64"))))
    let data = try Vectors.bytes(directory + "inapp_purchase_data.json")
    let valid = try #require(Base64.decode(try Vectors.trimmed(directory + "signature_valid.b64")))
    let invalid = try #require(Base64.decode(try Vectors.trimmed(directory + "signature_invalid.b64")))
    #expect(RSASHA1.isValidSignature(valid, for: data, publicKey: key))
    #expect(!RSASHA1.isValidSignature(invalid, for: data, publicKey: key))
    #expect(!RSASHA1.isValidSignature(valid, for: data + [0x0A], publicKey: key))
    // SHA-1, not SHA-256: the same signature is no RS256 signature.
    #expect(!RS256.isValidSignature(valid, for: data, publicKey: key))
  }
}
