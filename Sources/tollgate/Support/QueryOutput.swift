import ArgumentParser
import Foundation
import TollgateClient

/// How `tollgate query` prints answers and errors.
enum QueryOutput {
  /// Runs a call; a client error becomes one line on stderr and exit status 2.
  static func perform<T>(_ call: () async throws -> T) async throws -> T {
    do {
      return try await call()
    } catch let error as TollgateClientError {
      FileHandle.standardError.write(Data("tollgate query: \(error)\n".utf8))
      throw ExitCode(2)
    }
  }

  static func text(_ response: Tollgate_V1_IsSubscriberResponse, user: String, entitlement: String) -> String {
    guard response.state != .unspecified else {
      return "\(user) is NOT entitled to \(entitlement) (no subscription or grant)"
    }
    let verdict = response.active ? "is entitled to" : "is NOT entitled to"
    return """
      \(user) \(verdict) \(entitlement)
        state:        \(name(response.state))
        access level: \(response.accessLevel)
        until:        \(time(response.expiresAtMs))
        will renew:   \(response.willRenew ? "yes" : "no")
        through:      \(name(response.store)) \(response.productID) (\(response.storeSubscriptionID)), \(name(response.environment))
        verified at:  \(time(response.verifiedAtMs))
      """
  }

  static func text(_ response: Tollgate_V1_GetSubscriptionResponse) -> String {
    var lines = ["user \(response.userID)", "entitlements:"]
    for status in response.entitlements {
      lines.append(
        "  \(status.entitlement): \(status.active ? "ACTIVE" : "inactive"), \(name(status.state)) (access \(status.accessLevel)) until \(time(status.expiresAtMs)) via \(name(status.store)) \(status.productID)"
      )
    }
    lines.append("subscriptions:")
    for subscription in response.subscriptions {
      lines.append(
        "  \(name(subscription.store)) \(subscription.storeSubscriptionID): \(subscription.productID), \(name(subscription.state)), until \(time(subscription.expiresAtMs)), will renew \(subscription.willRenew ? "yes" : "no"), \(name(subscription.environment)), unlocks \(subscription.entitlements.joined(separator: ", "))"
      )
      if !subscription.replaces.isEmpty {
        lines.append("    replaces: \(subscription.replaces.joined(separator: " ← "))")
      }
    }
    return lines.joined(separator: "\n")
  }

  static func text(_ response: Tollgate_V1_HealthResponse) -> String {
    """
    status:        \(name(response.status))\(response.reason.isEmpty ? "" : ": " + response.reason)
    index:         \(response.indexUsers) users, \(response.indexRecords) records
    change feed:   applied \(response.changeFeedAppliedSeq), head \(response.changeFeedHeadSeq), lag \(response.changeFeedLagMs) ms
    version:       \(response.version), up \(response.uptimeMs / 1000) s
    """
  }

  static func name(_ value: some ShortNamed) -> String { value.shortName }

  static func time(_ ms: Int64) -> String {
    guard ms > 0 else { return "-" }
    let date = Date(timeIntervalSince1970: Double(ms) / 1000)
    return "\(date.formatted(.iso8601)) (\(ms))"
  }
}
