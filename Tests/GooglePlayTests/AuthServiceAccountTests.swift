import Foundation
import GooglePlay
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("Service-account key and assertion", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct AuthServiceAccountTests {
  static let keyFile = "google/aporat-oauth/test-service-account-key.json"

  static func vectorKey() throws -> ServiceAccountKey {
    try ServiceAccountKey(json: try Vectors.bytes(keyFile))
  }

  private func json(_ segment: Substring) throws -> [String: Any] {
    let bytes = try #require(Base64URL.decode(segment))
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  @Test("the vector key file parses, from a path and from an environment variable, and never prints its key")
  func parse() throws {
    let key = try Self.vectorKey()
    #expect(key.clientEmail.hasSuffix("@test-project.iam.gserviceaccount.com"))
    #expect(key.privateKeyId == "abcdef1234567890")
    #expect(key.tokenURI == "https://oauth2.googleapis.com/token")
    #expect(!key.description.contains("PRIVATE KEY"))
    let fromFile = try ServiceAccountKey.load(from: .file(Vectors.directory + "/" + Self.keyFile), environment: [:])
    #expect(fromFile.clientEmail == key.clientEmail)
    let content = try Vectors.string(Self.keyFile)
    let fromEnvironment = try ServiceAccountKey.load(
      from: .environment("TOLLGATE_GOOGLE_KEY"), environment: ["TOLLGATE_GOOGLE_KEY": content])
    #expect(fromEnvironment.privateKeyId == key.privateKeyId)
  }

  @Test("missing files, unset variables and keys that are not service-account RSA keys are invalidKeyFile")
  func invalidKeys() throws {
    var object = try #require(
      try JSONSerialization.jsonObject(with: Data(try Vectors.bytes(Self.keyFile))) as? [String: Any])
    let attempts: [() throws -> ServiceAccountKey] = [
      { try ServiceAccountKey.load(from: .file("/nonexistent/key.json"), environment: [:]) },
      { try ServiceAccountKey.load(from: .environment("UNSET"), environment: [:]) },
      { try ServiceAccountKey(json: Array("not json".utf8)) },
    ]
    var variants: [[String: Any]] = []
    object["type"] = "authorized_user"
    variants.append(object)
    object["type"] = "service_account"
    object["private_key"] = try P256PrivateKey.generate().pkcs8PEM()
    variants.append(object)
    object["private_key"] = nil
    variants.append(object)
    for attempt in attempts {
      #expect { try attempt() } throws: { ($0 as? GoogleAuthError)?.code == .invalidKeyFile }
    }
    for variant in variants {
      let bytes = Array(try JSONSerialization.data(withJSONObject: variant))
      #expect { try ServiceAccountKey(json: bytes) } throws: {
        ($0 as? GoogleAuthError)?.code == .invalidKeyFile && !"\($0)".contains("PRIVATE KEY")
      }
    }
  }

  @Test("the assertion is RS256 with the key id, signed by the key, with Google's claims")
  func assertion() throws {
    let key = try Self.vectorKey()
    let compact = try ServiceAccountAssertion(key: key).compact(nowSeconds: 1_700_000_000)
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
    #expect(parts.count == 3)
    let header = try json(parts[0])
    #expect(header["alg"] as? String == "RS256")
    #expect(header["typ"] as? String == "JWT")
    #expect(header["kid"] as? String == "abcdef1234567890")
    let claims = try json(parts[1])
    #expect(claims["iss"] as? String == key.clientEmail)
    #expect(claims["scope"] as? String == GooglePlay.androidPublisherScope)
    #expect(claims["aud"] as? String == "https://oauth2.googleapis.com/token")
    #expect(claims["iat"] as? Int64 == 1_700_000_000)
    #expect(claims["exp"] as? Int64 == 1_700_003_600)
    // The signature verifies with the public half of the key file's private key.
    let object = try JSONSerialization.jsonObject(with: Data(try Vectors.bytes(Self.keyFile))) as? [String: Any]
    let privateKey = try RSAPrivateKey(pem: try #require(object?["private_key"] as? String))
    let signature = try #require(Base64URL.decode(parts[2]))
    let input = Array("\(parts[0]).\(parts[1])".utf8)
    #expect(RS256.isValidSignature(signature, for: input, publicKey: privateKey.publicKey))
    #expect(!RS256.isValidSignature(signature, for: input + [0], publicKey: privateKey.publicKey))
  }
}
