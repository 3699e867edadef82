import ArgumentParser
import TollgateClient

struct Timeline: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "A user's history, oldest first: periods, renewals, refunds, grace, transfers, grants, and now.",
    discussion: "Exits 1 when Tollgate holds nothing of USER.")

  @Argument var user: String
  @Flag(help: "Print JSON (the proto3 JSON mapping of GetTimelineResponse).") var json = false
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws { try remote.check(against: options) }

  func run() async throws {
    let request = Tollgate_V1_GetTimelineRequest.with { $0.userID = user }
    let response = try await AdminOutput.perform("timeline", notFoundStatus: 1) {
      try await AdminBackend.using(remote: remote, local: options) { try await $0.timeline(request) }
    }
    print(json ? try AdminOutput.json(response) : AdminText.timeline(response))
  }
}
