import ArgumentParser
import TollgateClient

struct EraseUser: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "erase-user",
    abstract: "Delete what Tollgate holds of a user (GDPR erase). Needs --yes, or --dry-run to count first.",
    discussion:
      "Deletes the user's bindings, events, grants, submissions and entitlements. The store purchases stay, bound to nobody, and bind again only on fresh proof of purchase (docs/security.md). Exits 1 when Tollgate holds nothing of USER."
  )

  @Argument var user: String
  @Flag(help: "Erase: nothing is deleted without it.") var yes = false
  @Flag(help: "Count what would be deleted; delete nothing.") var dryRun = false
  @Option(help: "Who asks, recorded with the caller's name (default: the operating-system user).") var by: String?
  @Flag(help: "Print JSON (the proto3 JSON mapping of EraseUserResponse).") var json = false
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws {
    try remote.check(against: options)
    if !yes && !dryRun {
      throw ValidationError("erase-user deletes \(user)'s data for good: pass --yes (or --dry-run to count it first)")
    }
  }

  func run() async throws {
    let request = Tollgate_V1_EraseUserRequest.with {
      $0.userID = user
      $0.dryRun = dryRun
      $0.requestedBy = by ?? AdminOptions.operatorName ?? ""
    }
    let response = try await AdminOutput.perform("erase-user", notFoundStatus: 1) {
      try await AdminBackend.using(remote: remote, local: options) { try await $0.eraseUser(request) }
    }
    print(json ? try AdminOutput.json(response) : AdminText.erase(response, user: user))
  }
}
