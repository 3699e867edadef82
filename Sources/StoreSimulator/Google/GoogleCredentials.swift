import Foundation
import TollgateCrypto

/// The simulated Google identities: the service account whose JSON key the worker is given (its
/// public half checks the token endpoint's assertions), and the key that signs the OIDC tokens of
/// Pub/Sub pushes (published as a JWKS), and the licensing key that signs Play Billing purchase
/// data. All are saved in the data directory and reused.
struct GoogleCredentials: Sendable {
  let serviceAccountKey: RSAPrivateKey
  let serviceAccountPublicKey: RSAPublicKey
  let privateKeyId: String
  let clientEmail: String
  let clientId: String
  let projectId: String
  let oidcKey: RSAPrivateKey
  /// The OIDC key's `kid`: 40 hex digits, as Google's are.
  let oidcKid: String
  /// The JWKS document (`GET /oauth2/v3/certs`).
  let jwks: [UInt8]
  /// Signs `INAPP_PURCHASE_DATA` (RSA-SHA1), as Play Console's per-app licensing key; one for
  /// every simulated app.
  let licensingKey: RSAPrivateKey

  static let keyFile = "google-service-account.json"
  static let oidcKeyFile = "google-oidc-key.pem"
  static let licensingKeyFile = "google-licensing-key.pem"

  private struct KeyFile: Codable {
    var type: String
    var project_id: String
    var private_key_id: String
    var private_key: String
    var client_email: String
    var client_id: String
    var auth_uri: String
    var token_uri: String
    var auth_provider_x509_cert_url: String
    var client_x509_cert_url: String
    var universe_domain: String
  }

  /// The keys saved in `directory`, or new ones (saved there when `directory` is set).
  static func load(orCreateIn directory: String?, config: StoreSimulator.Google) throws(StoreSimulatorError)
    -> GoogleCredentials
  {
    do {
      var serviceAccount: (RSAPrivateKey, String, String)?
      if let directory, let data = FileManager.default.contents(atPath: "\(directory)/\(keyFile)") {
        let file = try JSONDecoder().decode(KeyFile.self, from: data)
        serviceAccount = (try RSAPrivateKey(pem: file.private_key), file.private_key_id, file.client_email)
      }
      let accountKey = try serviceAccount?.0 ?? SimulatorKeys.rsa("service-account")
      let keyId =
        try serviceAccount?.1 ?? GoogleJWT.hex(SHA256.hash(accountKey.publicKey.derRepresentation()).prefix(20))
      return try GoogleCredentials(
        serviceAccountKey: accountKey, privateKeyId: keyId,
        clientEmail: serviceAccount?.2 ?? config.serviceAccountEmail, projectId: config.projectId,
        oidcKey: try loadOrCreateKey(directory, oidcKeyFile),
        licensingKey: try loadOrCreateKey(directory, licensingKeyFile))
    } catch let error as StoreSimulatorError {
      throw error
    } catch {
      throw StoreSimulatorError(code: .startup, message: "cannot set up the Google credentials: \(error)", cause: error)
    }
  }

  private init(
    serviceAccountKey: RSAPrivateKey, privateKeyId: String, clientEmail: String, projectId: String,
    oidcKey: RSAPrivateKey, licensingKey: RSAPrivateKey
  ) throws {
    self.licensingKey = licensingKey
    self.serviceAccountKey = serviceAccountKey
    self.serviceAccountPublicKey = serviceAccountKey.publicKey
    self.privateKeyId = privateKeyId
    self.clientEmail = clientEmail
    self.projectId = projectId
    self.clientId = Self.digits(of: clientEmail, count: 21)
    self.oidcKey = oidcKey
    let publicDER = try oidcKey.publicKey.derRepresentation()
    self.oidcKid = GoogleJWT.hex(SHA256.hash(publicDER).prefix(20))
    let (modulus, exponent) = try oidcKey.publicKey.components()
    let keys: [String: Any] = [
      "keys": [
        [
          "kid": oidcKid, "kty": "RSA", "alg": "RS256", "use": "sig", "n": Base64URL.encode(modulus),
          "e": Base64URL.encode(exponent),
        ]
      ]
    ]
    self.jwks = Array(try JSONSerialization.data(withJSONObject: keys, options: [.sortedKeys]))
  }

  /// The service account's JSON key in Google's format, with `token_uri` set to `tokenURI`.
  func keyFileJSON(tokenURI: String) -> [UInt8] {
    let file = KeyFile(
      type: "service_account", project_id: projectId, private_key_id: privateKeyId,
      private_key: (try? serviceAccountKey.pkcs8PEM()) ?? "", client_email: clientEmail, client_id: clientId,
      auth_uri: "https://accounts.google.com/o/oauth2/auth", token_uri: tokenURI,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/"
        + (clientEmail.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? clientEmail),
      universe_domain: "googleapis.com")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return Array((try? encoder.encode(file)) ?? Data())
  }

  /// Writes (or rewrites, since the port may change between runs) the key file in `directory`.
  func writeKeyFile(in directory: String, tokenURI: String) throws(StoreSimulatorError) -> String {
    let path = "\(directory)/\(Self.keyFile)"
    do {
      try SimulatorKeys.makeDirectory(directory)
      try SimulatorKeys.writePrivate(keyFileJSON(tokenURI: tokenURI), to: path)
    } catch {
      throw StoreSimulatorError(code: .startup, message: "cannot write \(path): \(error)", cause: error)
    }
    return path
  }

  /// The RSA key saved as PKCS#8 PEM in `directory/name`, or a new one (saved there).
  private static func loadOrCreateKey(_ directory: String?, _ name: String) throws -> RSAPrivateKey {
    guard let directory else { return try SimulatorKeys.rsa(name) }
    let path = "\(directory)/\(name)"
    if let pem = try? String(contentsOfFile: path, encoding: .utf8) { return try RSAPrivateKey(pem: pem) }
    let key = try SimulatorKeys.rsa(name)
    try SimulatorKeys.makeDirectory(directory)
    try SimulatorKeys.writePrivate(Array(try key.pkcs8PEM().utf8), to: path)
    return key
  }

  /// The licensing key as Play Console shows it: base64 of its SubjectPublicKeyInfo.
  var licensingKeyBase64: String { (try? Base64.encode(licensingKey.publicKey.derRepresentation())) ?? "" }

  /// `INAPP_PURCHASE_DATA`'s signature: base64 of RSA-SHA1 over the exact bytes.
  func signPurchaseData(_ bytes: [UInt8]) -> String {
    do {
      return Base64.encode(try RSASHA1.sign(bytes, with: licensingKey))
    } catch {
      // Signing with a loaded RSA key cannot fail short of a bug.
      preconditionFailure("cannot sign purchase data: \(error)")
    }
  }

  /// The subject id (`sub`, `azp`) of the push service account's tokens.
  static func pushSubject(_ email: String) -> String { digits(of: email, count: 21) }

  /// `count` decimal digits derived from `text`, stable across runs (Google's numeric ids).
  private static func digits(of text: String, count: Int) -> String {
    let hash = SHA256.hash(text)
    let digits = hash.map { String($0 % 10) }.joined()
    return "1" + digits.prefix(count - 1)
  }
}
