import Foundation
import TollgateCrypto

/// A Google Cloud service account's JSON key (the file Google Cloud lets you download once),
/// parsed once. Its description never shows the private key.
public struct ServiceAccountKey: Sendable, CustomStringConvertible {
  /// Where the key's JSON comes from.
  public enum Source: Sendable, Hashable {
    /// A file path.
    case file(String)
    /// An environment variable holding the JSON itself (for secrets injected by the platform).
    case environment(String)
  }

  public let clientEmail: String
  public let privateKeyId: String
  /// Where tokens are requested (the key's `token_uri`); settable so that a test or the store
  /// simulator can point it elsewhere.
  public var tokenURI: String
  public let projectId: String?
  let privateKey: RSAPrivateKey

  /// Google's token endpoint, used when a key file has no `token_uri`.
  public static let googleTokenURI = "https://oauth2.googleapis.com/token"

  private struct File: Decodable {
    var type: String?
    var client_email: String?
    var private_key: String?
    var private_key_id: String?
    var token_uri: String?
    var project_id: String?
  }

  /// Parses the key file's JSON. Errors are `.invalidKeyFile` and name the field, never its value.
  public init(json: [UInt8]) throws(GoogleAuthError) {
    let invalid = { (message: String) in GoogleAuthError(code: .invalidKeyFile, message: message) }
    guard let file = try? JSONDecoder().decode(File.self, from: Data(json)) else {
      throw invalid("the service-account key is not a JSON object")
    }
    guard file.type == "service_account" else {
      throw invalid("the key's type is \(file.type ?? "missing"), not service_account")
    }
    guard let email = file.client_email, !email.isEmpty else { throw invalid("the key has no client_email") }
    guard let pem = file.private_key, !pem.isEmpty else { throw invalid("the key has no private_key") }
    guard let keyId = file.private_key_id, !keyId.isEmpty else { throw invalid("the key has no private_key_id") }
    do {
      privateKey = try RSAPrivateKey(pem: pem)
    } catch {
      throw GoogleAuthError(
        code: .invalidKeyFile, message: "the key's private_key is not an RSA PKCS#8 PEM (\(error.code))", cause: error)
    }
    clientEmail = email
    privateKeyId = keyId
    tokenURI = file.token_uri ?? Self.googleTokenURI
    projectId = file.project_id
  }

  /// Reads and parses the key from `source`; `environment` is the process environment, passed
  /// in by `main`.
  public static func load(from source: Source, environment: [String: String]) throws(GoogleAuthError)
    -> ServiceAccountKey
  {
    switch source {
    case .file(let path):
      guard let data = FileManager.default.contents(atPath: path) else {
        throw GoogleAuthError(code: .invalidKeyFile, message: "cannot read the service-account key file \(path)")
      }
      return try ServiceAccountKey(json: Array(data))
    case .environment(let name):
      guard let json = environment[name], !json.isEmpty else {
        throw GoogleAuthError(code: .invalidKeyFile, message: "the environment variable \(name) is not set")
      }
      return try ServiceAccountKey(json: Array(json.utf8))
    }
  }

  public var description: String { "ServiceAccountKey(\(clientEmail), key id \(privateKeyId))" }
}
