import Foundation

/// One App Store app the worker verifies purchases for: identity, credentials (from files or the
/// environment, never logged) and where Apple (or the simulator) answers.
public struct AppleAppSettings: Sendable, Decodable, Hashable {
  public var bundleId: String
  /// Required in production (Apple checks it in signed payloads).
  public var appAppleId: Int64?
  /// `production` or `sandbox`: which App Store this app's purchases come from.
  public var environment: String = "production"
  /// A production app that also accepts sandbox purchases (TestFlight, App Review).
  public var allowSandbox: Bool = false
  /// App Store Server API key (App Store Connect → Keys): its id, the issuer id, and the .p8 key
  /// from a file or from an environment variable holding the PEM.
  public var apiKeyId: String?
  public var apiIssuerId: String?
  public var apiPrivateKeyFile: String?
  public var apiPrivateKeyEnv: String?
  /// The app-specific shared secret for verifyReceipt, from an environment variable.
  public var sharedSecretEnv: String?
  /// Overrides of Apple's URLs (the simulator, a proxy).
  public var apiBaseURL: String?
  public var sandboxAPIBaseURL: String?
  public var verifyReceiptURL: String?
  public var sandboxVerifyReceiptURL: String?
  /// Trusted roots (DER/PEM files). Default: Apple's pinned roots.
  public var rootCertificates: [String]?
  /// How recently Apple must have signed a submitted signed transaction (its `signedDate`) or app
  /// receipt (its creation date) for it to move a purchase bound to another user under the
  /// transfer policy (issue 17): a payload copied long ago proves nothing about who holds the
  /// purchase now. Default 24 h.
  public var transferFreshnessMs: Int64 = 86_400_000
  /// How long one call to the App Store Server API may take before it counts as
  /// failed (transient: the chain keeps its state and is retried). Default 10 s.
  public var requestTimeoutMs: Int64 = 10_000

  enum CodingKeys: String, CodingKey {
    case bundleId, appAppleId, environment, allowSandbox, apiKeyId, apiIssuerId, apiPrivateKeyFile, apiPrivateKeyEnv,
      sharedSecretEnv, apiBaseURL, sandboxAPIBaseURL, verifyReceiptURL, sandboxVerifyReceiptURL, rootCertificates,
      transferFreshnessMs, requestTimeoutMs
  }

  public init(bundleId: String) {
    self.bundleId = bundleId
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    bundleId = try c.decode(String.self, forKey: .bundleId)
    appAppleId = try c.decodeIfPresent(Int64.self, forKey: .appAppleId)
    environment = try c.decodeIfPresent(String.self, forKey: .environment) ?? "production"
    allowSandbox = try c.decodeIfPresent(Bool.self, forKey: .allowSandbox) ?? false
    apiKeyId = try c.decodeIfPresent(String.self, forKey: .apiKeyId)
    apiIssuerId = try c.decodeIfPresent(String.self, forKey: .apiIssuerId)
    apiPrivateKeyFile = try c.decodeIfPresent(String.self, forKey: .apiPrivateKeyFile)
    apiPrivateKeyEnv = try c.decodeIfPresent(String.self, forKey: .apiPrivateKeyEnv)
    sharedSecretEnv = try c.decodeIfPresent(String.self, forKey: .sharedSecretEnv)
    apiBaseURL = try c.decodeIfPresent(String.self, forKey: .apiBaseURL)
    sandboxAPIBaseURL = try c.decodeIfPresent(String.self, forKey: .sandboxAPIBaseURL)
    verifyReceiptURL = try c.decodeIfPresent(String.self, forKey: .verifyReceiptURL)
    sandboxVerifyReceiptURL = try c.decodeIfPresent(String.self, forKey: .sandboxVerifyReceiptURL)
    rootCertificates = try c.decodeIfPresent([String].self, forKey: .rootCertificates)
    transferFreshnessMs = try c.decodeIfPresent(Int64.self, forKey: .transferFreshnessMs) ?? 86_400_000
    requestTimeoutMs = try c.decodeIfPresent(Int64.self, forKey: .requestTimeoutMs) ?? 10_000
  }

  public var isProduction: Bool { environment == "production" }

  /// The API key PEM, from the file or the environment.
  public func apiPrivateKeyPEM(environment variables: [String: String]) -> String? {
    if let name = apiPrivateKeyEnv, let pem = variables[name], !pem.isEmpty { return pem }
    if let path = apiPrivateKeyFile, let data = FileManager.default.contents(atPath: path) {
      return String(decoding: data, as: UTF8.self)
    }
    return nil
  }

  public func sharedSecret(environment variables: [String: String]) -> String? {
    sharedSecretEnv.flatMap { variables[$0] }.flatMap { $0.isEmpty ? nil : $0 }
  }

  func problems(environment variables: [String: String]) -> [String] {
    var problems: [String] = []
    if environment != "production" && environment != "sandbox" {
      problems.append("environment must be \"production\" or \"sandbox\"")
    }
    if isProduction && appAppleId == nil { problems.append("appAppleId is required in production") }
    if apiKeyId == nil || apiIssuerId == nil { problems.append("apiKeyId and apiIssuerId are required") }
    if apiPrivateKeyFile == nil && apiPrivateKeyEnv == nil {
      problems.append("apiPrivateKeyFile or apiPrivateKeyEnv is required")
    } else if apiPrivateKeyPEM(environment: variables) == nil {
      problems.append(
        "the API private key cannot be read from \(apiPrivateKeyEnv.map { "$\($0)" } ?? apiPrivateKeyFile ?? "")")
    }
    if let name = sharedSecretEnv, sharedSecret(environment: variables) == nil {
      problems.append("sharedSecretEnv names $\(name), which is not set")
    }
    if transferFreshnessMs < 0 { problems.append("transferFreshnessMs must not be negative") }
    if !(100...300_000).contains(requestTimeoutMs) {
      problems.append("requestTimeoutMs must be between 100 and 300000 (ms)")
    }
    for path in rootCertificates ?? [] where !FileManager.default.isReadableFile(atPath: path) {
      problems.append("root certificate \(path) cannot be read")
    }
    return problems
  }
}
