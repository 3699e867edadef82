import AmazonAppstore
import ArgumentParser

extension Inspect {
  struct AmazonNotification: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "amazon-notification",
      abstract:
        "An SNS message (a Real-Time Notification or a SubscriptionConfirmation): its signature verified with --cert; nothing is fetched."
    )

    @Argument(help: "File holding the SNS message as delivered ('-' for stdin).") var file: String
    @Option(
      help:
        "The PEM certificate at the message's SigningCertURL (which must still be an SNS URL). Without it the signature is not checked and the verdict is invalid."
    )
    var cert: String?
    @Option(help: "When the certificate must be valid, in ms since the epoch. Default: the message's Timestamp.")
    var at: Int64?

    func run() throws {
      try Inspect.runAmazon {
        let text = try InspectInput.read(file)
        let certificate = try cert.map { try InspectInput.certificate(pemFile: $0) }
        return try AmazonInspection.inspectNotification(text, certificate: certificate, atMs: at)
      }
    }
  }
}
