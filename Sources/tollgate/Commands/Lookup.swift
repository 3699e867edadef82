import ArgumentParser
import TollgateClient

struct Lookup: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lookup",
    abstract: "Find the store purchases an identifier names, and whom they are bound to. Exit 0 if any, 1 if none.",
    discussion:
      "IDENTIFIER is what a customer or a store's console shows: an App Store transaction, original transaction or order id (from the receipt e-mail), a Google Play purchase token or order id (GPA.…), an Amazon receipt or user id. Without --kind, every kind its shape may be is searched. An App Store order id is asked of Apple only by a service whose config has an appStore section (--server)."
  )

  @Argument var identifier: String
  @Option(help: "What IDENTIFIER is (\(IdentifierKindArgument.allValueStrings.joined(separator: ", "))).")
  var kind: IdentifierKindArgument?
  @Flag(help: "Print JSON (the proto3 JSON mapping of LookUpResponse).") var json = false
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws { try remote.check(against: options) }

  func run() async throws {
    let request = Tollgate_V1_LookUpRequest.with {
      $0.identifier = identifier
      $0.kind = kind?.kind ?? .unspecified
    }
    let response = try await AdminOutput.perform("lookup") {
      try await AdminBackend.using(remote: remote, local: options) { try await $0.lookUp(request) }
    }
    print(json ? try AdminOutput.json(response) : AdminText.lookUp(response, identifier: identifier))
    if response.matches.isEmpty { throw ExitCode(1) }
  }
}
