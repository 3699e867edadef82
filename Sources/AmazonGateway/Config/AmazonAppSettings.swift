import Foundation
import TollgateWorker

/// One Amazon Appstore app the worker verifies purchases for: its package name, the shared secret
/// that opens the Receipt Verification Service (from the environment or a file, never logged),
/// which RVS it asks, and which SNS topics may deliver its Real-Time Notifications.
public struct AmazonAppSettings: Sendable, Decodable, Hashable {
  /// The app as Amazon names it (the RTN's `appPackageName`); the catalog's `amazonAppId`.
  public var appPackageName: String
  /// The Developer Console's shared secret: an environment variable, or a file holding it
  /// (`ConfigSecret`: exactly one of the two).
  public var sharedSecretEnv: String?
  public var sharedSecretFile: String?
  /// `production` asks RVS; `sandbox` asks the RVS Cloud Sandbox (App Tester purchases).
  public var environment: String = "production"
  /// Accept purchases RVS marks `testTransaction` (Live App Testing) as sandbox purchases.
  public var allowTestTransactions: Bool = false
  /// Overrides of Amazon's RVS bases (the simulator).
  public var rvsBaseURL: String?
  public var rvsSandboxBaseURL: String?
  /// The SNS topics allowed to deliver this app's notifications (`arn:aws:sns:…`); without any, no
  /// notification is accepted and purchases are kept fresh by the schedule alone.
  public var allowedTopicArns: [String] = []
  /// URL prefixes trusted for SNS signing certificates beside `https://sns.<region>.amazonaws.com/`
  /// (the simulator's certificate); empty in production.
  public var trustedCertificateURLPrefixes: [String] = []

  enum CodingKeys: String, CodingKey {
    case appPackageName, sharedSecretEnv, sharedSecretFile, environment, allowTestTransactions, rvsBaseURL,
      rvsSandboxBaseURL, allowedTopicArns, trustedCertificateURLPrefixes
  }

  public init(appPackageName: String) {
    self.appPackageName = appPackageName
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    appPackageName = try c.decode(String.self, forKey: .appPackageName)
    sharedSecretEnv = try c.decodeIfPresent(String.self, forKey: .sharedSecretEnv)
    sharedSecretFile = try c.decodeIfPresent(String.self, forKey: .sharedSecretFile)
    environment = try c.decodeIfPresent(String.self, forKey: .environment) ?? "production"
    allowTestTransactions = try c.decodeIfPresent(Bool.self, forKey: .allowTestTransactions) ?? false
    rvsBaseURL = try c.decodeIfPresent(String.self, forKey: .rvsBaseURL)
    rvsSandboxBaseURL = try c.decodeIfPresent(String.self, forKey: .rvsSandboxBaseURL)
    allowedTopicArns = try c.decodeIfPresent([String].self, forKey: .allowedTopicArns) ?? []
    trustedCertificateURLPrefixes = try c.decodeIfPresent([String].self, forKey: .trustedCertificateURLPrefixes) ?? []
  }

  /// Whether the app asks the RVS Cloud Sandbox.
  public var usesSandbox: Bool { environment == "sandbox" }

  /// Where the shared secret comes from (`sharedSecretEnv` or `sharedSecretFile`).
  public var sharedSecretSource: ConfigSecret {
    ConfigSecret(key: "sharedSecret", env: sharedSecretEnv, file: sharedSecretFile)
  }

  /// The shared secret, from the environment or the file (trimmed); nil when it cannot be read.
  public func sharedSecret(environment variables: [String: String]) -> String? {
    guard let secret = try? sharedSecretSource.value(environment: variables) else { return nil }
    let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
  }

  func problems(environment variables: [String: String]) -> [String] {
    var problems: [String] = []
    if appPackageName.isEmpty { problems.append("appPackageName is empty") }
    if environment != "production" && environment != "sandbox" {
      problems.append("environment must be production or sandbox")
    }
    if let problem = sharedSecretSource.problem(environment: variables, required: true) {
      problems.append(problem)
    } else if sharedSecret(environment: variables) == nil {
      problems.append("sharedSecret\(sharedSecretEnv == nil ? "File" : "Env"): the shared secret is only white space")
    }
    for arn in allowedTopicArns where !arn.hasPrefix("arn:aws:sns:") && !arn.hasPrefix("arn:aws-cn:sns:") {
      problems.append("allowedTopicArns: \(arn) is not an SNS topic ARN")
    }
    for (name, url) in [("rvsBaseURL", rvsBaseURL), ("rvsSandboxBaseURL", rvsSandboxBaseURL)] {
      if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
        problems.append("\(name) must be http(s)")
      }
    }
    for prefix in trustedCertificateURLPrefixes
    where !(prefix.hasPrefix("https://") || prefix.hasPrefix("http://")) || !prefix.hasSuffix("/") {
      problems.append("trustedCertificateURLPrefixes: \(prefix) must be an http(s) URL ending in /")
    }
    return problems
  }
}
