import ArgumentParser
import TollgateClient
import TollgateCore
import TollgateSupport

// grant, revoke, reverify and explain with --server: the same command on a running service
// (issue 28). The local path (--database) is in Admin.swift.

extension Grant {
  func runRemote() async throws {
    // `--until 30d` counts from this machine's clock; the service checks the time is after its own now.
    let untilMs = try until.milliseconds(now: SystemClock.nowMs())
    // Exact Int64 ms (ISO8601Text, as the service parses it back); "" only past year 9999.
    let untilText = ISO8601Text.text(ms: untilMs)
    guard !untilText.isEmpty else { throw ValidationError("--until must be a time in years 0001 to 9999") }
    let client = try remote.client()
    let response = try await AdminOutput.perform("grant") {
      try await client.grant(
        userId: user, entitlement: entitlement, until: untilText, note: note ?? "",
        requestedBy: by ?? AdminOptions.operatorName ?? "")
    }
    print("granted \(entitlement) to \(user) until \(untilText) (grant \(response.grantID))")
    for line in AdminOutput.entitlements(response.entitlements) { print(line) }
  }
}

extension Revoke {
  func runRemote() async throws {
    let client = try remote.client()
    let response = try await AdminOutput.perform("revoke", notFoundStatus: 1) {
      try await client.revoke(
        userId: user, entitlement: entitlement, note: note ?? "", requestedBy: by ?? AdminOptions.operatorName ?? "")
    }
    print("revoked \(response.revoked) grant(s) of \(entitlement) from \(user)")
    if response.revoked == 0 { throw ExitCode(1) }
  }
}

extension Reverify {
  func runRemote() async throws {
    let client = try remote.client()
    let response = try await AdminOutput.perform("reverify") { try await client.reverify(userId: user) }
    print("\(response.subscriptions) subscription(s) of \(user) queued for re-verification")
    if response.subscriptions == 0 { throw ExitCode(1) }
  }
}

extension Explain {
  func runRemote() async throws {
    let client = try remote.client()
    let response = try await AdminOutput.perform("explain") {
      try await client.explain(userId: user, entitlement: entitlement)
    }
    print(json ? try AdminOutput.json(response) : AdminText.explain(response))
  }
}
