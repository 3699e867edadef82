import ArgumentParser
import GooglePlay
import TollgateCore

extension Inspect {
  struct GoogleSubscription: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "google-subscription",
      abstract:
        "A purchases.subscriptionsv2 (or v1 purchases.subscriptions) resource: Tollgate's state and entitlement.")

    @Argument(help: "File holding the resource's JSON ('-' for stdin).") var file: String
    @Option(help: "The moment to evaluate, in ms since the epoch. Default: now.") var at: Int64?

    func run() throws {
      try Inspect.runGoogle {
        let json = Array(try InspectInput.read(file).utf8)
        return try GooglePlayInspection.inspectSubscription(json: json, atMs: at ?? SystemClock.nowMs())
      }
    }
  }
}
