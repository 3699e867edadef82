import AmazonAppstore
import ArgumentParser
import TollgateCore

extension Inspect {
  struct AmazonReceipt: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "amazon-receipt",
      abstract: "An RVS verifyReceiptId response body: what Tollgate makes of the receipt (entitled, until when).")

    @Argument(help: "File holding the response body's JSON ('-' for stdin).") var file: String
    @Option(help: "The moment to evaluate, in ms since the epoch. Default: now.") var at: Int64?

    func run() throws {
      try Inspect.runAmazon {
        let json = Array(try InspectInput.read(file).utf8)
        return try AmazonInspection.inspectReceipt(json: json, atMs: at ?? SystemClock.nowMs())
      }
    }
  }
}
