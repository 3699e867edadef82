import Foundation
import TollgateWorker

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
  /// from a file or from an environment variable holding the PEM (`ConfigSecret`: exactly one).
  public var apiKeyId: String?
  public var apiIssuerId: String?
  public var apiPrivateKeyFile: String?
  public var apiPrivateKeyEnv: String?
  /// The app-specific shared secret for verifyReceipt (optional): an environment variable or a
  /// file holding it (`ConfigSecret`: at most one of the two).
  public var sharedSecretEnv: String?
  public var sharedSecretFile: String?
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
      sharedSecretEnv, sharedSecretFile, apiBaseURL, sandboxAPIBaseURL, verifyReceiptURL, sandboxVerifyReceiptURL,
      rootCertificates,
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
    sharedSecretFile = try c.decodeIfPresent(String.self, forKey: .sharedSecretFile)
    apiBaseURL = try c.decodeIfPresent(String.self, forKey: .apiBaseURL)
    sandboxAPIBaseURL = try c.decodeIfPresent(String.self, forKey: .sandboxAPIBaseURL)
    verifyReceiptURL = try c.decodeIfPresent(String.self, forKey: .verifyReceiptURL)
    sandboxVerifyReceiptURL = try c.decodeIfPresent(String.self, forKey: .sandboxVerifyReceiptURL)
    rootCertificates = try c.decodeIfPresent([String].self, forKey: .rootCertificates)
    transferFreshnessMs = try c.decodeIfPresent(Int64.self, forKey: .transferFreshnessMs) ?? 86_400_000
    requestTimeoutMs = try c.decodeIfPresent(Int64.self, forKey: .requestTimeoutMs) ?? 10_000
  }

  public var isProduction: Bool { environment == "production" }

  /// Where the API key's PEM comes from (`apiPrivateKeyEnv` or `apiPrivateKeyFile`).
  public var apiPrivateKey: ConfigSecret {
    ConfigSecret(key: "apiPrivateKey", env: apiPrivateKeyEnv, file: apiPrivateKeyFile)
  }

  /// Where verifyReceipt's shared secret comes from (`sharedSecretEnv` or `sharedSecretFile`).
  public var sharedSecretSource: ConfigSecret {
    ConfigSecret(key: "sharedSecret", env: sharedSecretEnv, file: sharedSecretFile)
  }

  /// The API key PEM, from the file or the environment; nil when it cannot be read.
  public func apiPrivateKeyPEM(environment variables: [String: String]) -> String? {
    try? apiPrivateKey.value(environment: variables)
  }

  /// The shared secret; nil when none is configured or it cannot be read.
  public func sharedSecret(environment variables: [String: String]) -> String? {
    (try? sharedSecretSource.optionalValue(environment: variables)) ?? nil
  }

  func problems(environment variables: [String: String]) -> [String] {
    var problems: [String] = []
    if environment != "production" && environment != "sandbox" {
      problems.append("environment must be \"production\" or \"sandbox\"")
    }
    if isProduction && appAppleId == nil { problems.append("appAppleId is required in production") }
    if apiKeyId == nil || apiIssuerId == nil { problems.append("apiKeyId and apiIssuerId are required") }
    if let problem = apiPrivateKey.problem(environment: variables, required: true) { problems.append(problem) }
    if let problem = sharedSecretSource.problem(environment: variables, required: false) { problems.append(problem) }
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
