import Testing
import TollgateCrypto

@Suite("Base64, digests and signatures")
struct PrimitivesTests {
  @Test(arguments: [
    ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
  ])
  func base64RoundTrip(plain: String, encoded: String) {
    #expect(Base64.encode(Array(plain.utf8)) == encoded)
    #expect(Base64.decode(encoded) == Array(plain.utf8))
    #expect(Base64URL.decode(encoded.replacingOccurrences(of: "=", with: "")) == Array(plain.utf8))
  }

  @Test(arguments: ["Zg=", "Z", "Zm9v!", "Zm=9v", "Zh==", "Zm9v\n"])
  func base64RejectsMalformed(encoded: String) {
    #expect(Base64.decode(encoded) == nil)
  }

  @Test func base64URLAlphabet() {
    #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    #expect(Base64.decode("-_8") == nil)
    #expect(Base64.decode("Zm9v\nYmE=", ignoringWhitespace: true) == Array("fooba".utf8))
  }

  @Test func sha256AndHMAC() {
    let hex = { (bytes: [UInt8]) in bytes.map { String($0, radix: 16).leftPadded }.joined() }
    #expect(hex(SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    // RFC 4231 test case 2.
    let mac = HMACSHA256.authenticationCode(
      for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
    #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    #expect(HMACSHA256.isEqual(mac, mac))
    #expect(!HMACSHA256.isEqual(mac, Array(mac.dropLast()) + [0]))
  }

  @Test func es256SignVerify() throws {
    let key = try P256PrivateKey.generate()
    let message = Array("header.payload".utf8)
    let signature = try ES256.sign(message, with: key)
    #expect(signature.count == 64)
    #expect(ES256.isValidSignature(signature, for: message, publicKey: key.publicKey))
    #expect(!ES256.isValidSignature(signature, for: message + [0], publicKey: key.publicKey))
    #expect(!ES256.isValidSignature(Array(signature.dropLast()), for: message, publicKey: key.publicKey))
    let other = try P256PrivateKey.generate()
    #expect(!ES256.isValidSignature(signature, for: message, publicKey: other.publicKey))
    // PEM round trip keeps the key.
    let reloaded = try P256PrivateKey(pem: try key.pkcs8PEM())
    #expect(try reloaded.publicKey.derRepresentation() == key.publicKey.derRepresentation())
  }

  @Test func rs256SignVerify() throws {
    let key = try RSAPrivateKey.generate(bits: 2048)
    let message = Array("header.payload".utf8)
    let signature = try RS256.sign(message, with: key)
    #expect(signature.count == 256)
    #expect(RS256.isValidSignature(signature, for: message, publicKey: key.publicKey))
    #expect(!RS256.isValidSignature(signature, for: message + [1], publicKey: key.publicKey))
    #expect(throws: CryptoError.self) { try P256PrivateKey(pem: try key.pkcs8PEM()) }
  }

  @Test func malformedInputsAreTyped() {
    #expect { try P256PrivateKey(bytes: [1, 2, 3]) } throws: { ($0 as? CryptoError)?.code == .malformedKey }
    #expect { try Certificate(der: Array("abc".utf8)) } throws: {
      ($0 as? CryptoError)?.code == .malformedCertificate
    }
    #expect { try PKCS7.signedContent(of: [0x30, 0x00]) } throws: { ($0 as? CryptoError)?.code == .malformedPKCS7 }
  }
}

extension String {
  var leftPadded: String { count == 1 ? "0" + self : self }
}
