import Foundation
import GooglePlay
import TollgateWorker

/// One Google Play app the worker verifies purchases for: its package name, the service account
/// that calls the Android Publisher API (a JSON key from a file or the environment, never logged),
/// who may push its Real-time developer notifications, and where Google (or the simulator) answers.
public struct GooglePlayAppSettings: Sendable, Decodable, Hashable {
  public var packageName: String
  /// The service account's JSON key: a file, or an environment variable holding its content
  /// (`ConfigSecret`: exactly one of the two).
  public var serviceAccountKeyFile: String?
  public var serviceAccountKeyEnv: String?
  /// Pub/Sub push authentication: the audience set on the push subscription, and the service
  /// account it pushes as (its OIDC token's `email`). The service account is required: any Google
  /// Cloud project can have Google sign a token for any audience, so the audience alone proves
  /// nothing about who pushed.
  public var pushAudience: String?
  public var pushServiceAccount: String?
  /// Accept a push token of any service account (only the audience checked). Off unless set:
  /// without `pushServiceAccount` the worker refuses to start.
  public var acceptAnyPushServiceAccount: Bool = false
  /// Overrides of Google's URLs (the simulator, a proxy).
  public var apiBaseURL: String?
  public var tokenURI: String?
  public var jwksURL: String?
  /// Acknowledge verified purchases (Google refunds one left unacknowledged for 3 days). Off for
  /// apps that acknowledge from their own backend.
  public var acknowledge: Bool = true
  /// Accept test purchases (license testers) as sandbox purchases.
  public var allowTestPurchases: Bool = false
  /// The app's licensing key (Play Console → Monetization setup → Licensing: base64 of an RSA
  /// public key). With it, a submission carrying Play Billing purchase data has its signature
  /// checked first. A public key: it may sit in the file.
  public var licensingKey: String?
  /// How recent Play Billing purchase data must be to move a purchase bound to another user,
  /// counted from its `purchaseTime` (the only time Google puts in the signed data); the App
  /// Store's window (`transferFreshnessMs`, 24 h).
  public var transferFreshnessMs: Int64 = 86_400_000

  enum CodingKeys: String, CodingKey {
    case packageName, serviceAccountKeyFile, serviceAccountKeyEnv, pushAudience, pushServiceAccount,
      acceptAnyPushServiceAccount, apiBaseURL, tokenURI, jwksURL, acknowledge, allowTestPurchases, licensingKey,
      transferFreshnessMs
  }

  public init(packageName: String) {
    self.packageName = packageName
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    packageName = try c.decode(String.self, forKey: .packageName)
    serviceAccountKeyFile = try c.decodeIfPresent(String.self, forKey: .serviceAccountKeyFile)
    serviceAccountKeyEnv = try c.decodeIfPresent(String.self, forKey: .serviceAccountKeyEnv)
    pushAudience = try c.decodeIfPresent(String.self, forKey: .pushAudience)
    pushServiceAccount = try c.decodeIfPresent(String.self, forKey: .pushServiceAccount)
    acceptAnyPushServiceAccount = try c.decodeIfPresent(Bool.self, forKey: .acceptAnyPushServiceAccount) ?? false
    apiBaseURL = try c.decodeIfPresent(String.self, forKey: .apiBaseURL)
    tokenURI = try c.decodeIfPresent(String.self, forKey: .tokenURI)
    jwksURL = try c.decodeIfPresent(String.self, forKey: .jwksURL)
    acknowledge = try c.decodeIfPresent(Bool.self, forKey: .acknowledge) ?? true
    allowTestPurchases = try c.decodeIfPresent(Bool.self, forKey: .allowTestPurchases) ?? false
    licensingKey = try c.decodeIfPresent(String.self, forKey: .licensingKey)
    transferFreshnessMs = try c.decodeIfPresent(Int64.self, forKey: .transferFreshnessMs) ?? 86_400_000
  }

  /// Where the service account's key comes from (`serviceAccountKeyEnv` or `serviceAccountKeyFile`).
  public var serviceAccountKeySource: ConfigSecret {
    ConfigSecret(key: "serviceAccountKey", env: serviceAccountKeyEnv, file: serviceAccountKeyFile)
  }

  /// The service account's JSON key, from the environment or the file; nil when it cannot be read.
  public func serviceAccountKey(environment variables: [String: String]) -> String? {
    try? serviceAccountKeySource.value(environment: variables)
  }

  func problems(environment variables: [String: String]) -> [String] {
    var problems: [String] = []
    if packageName.isEmpty { problems.append("packageName is empty") }
    if let problem = serviceAccountKeySource.problem(environment: variables, required: true) {
      problems.append(problem)
    }
    if pushAudience == nil {
      problems.append("pushAudience is required: notifications are authenticated before they are stored")
    }
    if let pushServiceAccount {
      if pushServiceAccount.isEmpty { problems.append("pushServiceAccount is empty") }
      if acceptAnyPushServiceAccount {
        problems.append("set pushServiceAccount or acceptAnyPushServiceAccount: true, not both")
      }
    } else if !acceptAnyPushServiceAccount {
      problems.append(
        "pushServiceAccount is required (the service account the Pub/Sub push subscription authenticates as): "
          + "any Google Cloud project can have Google sign a push token for this audience; set "
          + "acceptAnyPushServiceAccount: true only to accept pushes from anyone's service account")
    }
    if transferFreshnessMs < 0 { problems.append("transferFreshnessMs must not be negative") }
    if let licensingKey, (try? PlayBillingSignatureVerifier(licensingKeyBase64: licensingKey)) == nil {
      problems.append("licensingKey is not a base64 RSA public key (copy it from Play Console → Licensing)")
    }
    for (name, url) in [("apiBaseURL", apiBaseURL), ("tokenURI", tokenURI), ("jwksURL", jwksURL)] {
      if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
        problems.append("\(name) must be http(s)")
      }
    }
    return problems
  }
}
