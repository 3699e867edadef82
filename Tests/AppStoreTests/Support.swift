import AppStore
import Foundation
import StoreSimulator
import TollgateCrypto
import TollgateTesting

/// Builds App Store verifiers and JWS for tests.
enum Fixtures {
  static func root(_ relativePath: String) throws -> Certificate {
    try Certificate(der: try Vectors.bytes(relativePath))
  }

  static func verifier(
    root: String = "apple/apple-lib/certs/testCA.der", bundleId: String = "com.example", appAppleId: Int64? = 1234,
    environment: AppStoreEnvironment = .sandbox, allowSandbox: Bool = false
  ) throws -> SignedDataVerifier {
    SignedDataVerifier(
      config: .init(
        rootCertificates: [try Self.root(root)], bundleId: bundleId, appAppleId: appAppleId, environment: environment,
        allowSandbox: allowSandbox))
  }

  static func verifier(ca: SimulatedSigningChain, environment: AppStoreEnvironment = .sandbox) -> SignedDataVerifier {
    SignedDataVerifier(
      config: .init(rootCertificates: [ca.root], bundleId: "com.example", appAppleId: 1234, environment: environment))
  }

  /// A compact JWS with the given header fields (x5c from `chain` unless overridden), signed
  /// by `key` with ES256.
  static func jws(
    payload: [String: any Sendable], chain: [Certificate], key: P256PrivateKey, header: [String: any Sendable] = [:]
  ) throws -> String {
    var fields: [String: any Sendable] = ["x5c": chain.map { Base64.encode($0.der) }]
    for (name, value) in header { fields[name] = value }
    let payloadJSON = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
    return try JWS.signES256(header: fields, payloadJSON: Array(payloadJSON), key: key)
  }

  /// Replaces the payload segment of `compact`, keeping header and signature.
  static func replacingPayload(of compact: String, with payload: [String: Any]) throws -> String {
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
    let json = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
    return "\(parts[0]).\(Base64URL.encode(json)).\(parts[2])"
  }

  /// The decoded payload of a compact JWS as a JSON object.
  static func payloadObject(of compact: String) throws -> [String: Any] {
    let parts = compact.split(separator: ".")
    let json = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[1]) ?? []))
    return json as? [String: Any] ?? [:]
  }

  static let signedAt: Int64 = 1_700_000_000_000

  static func transactionPayload(environment: String = "Sandbox") -> [String: any Sendable] {
    [
      "transactionId": "2000000000000002", "originalTransactionId": "2000000000000001", "bundleId": "com.example",
      "productId": "pro.monthly", "purchaseDate": signedAt - 1000, "expiresDate": signedAt + 2_592_000_000,
      "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": signedAt,
      "environment": environment,
    ]
  }
}
