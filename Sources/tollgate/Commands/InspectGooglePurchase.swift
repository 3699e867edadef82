import ArgumentParser
import GooglePlay

extension Inspect {
  struct GooglePurchase: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "google-purchase",
      abstract: "A Play Billing purchase (INAPP_PURCHASE_DATA): its RSA-SHA1 signature over the file's exact bytes.")

    @Argument(help: "File holding INAPP_PURCHASE_DATA exactly as the app received it.") var file: String
    @Option(help: "File holding the app's licensing key (base64 from Play Console, or PEM).") var publicKey: String
    @Option(help: "File holding the purchase's base64 signature.") var signature: String

    func run() throws {
      try Inspect.runGoogle {
        let data = try InspectInput.readBytes(file)
        let verifier = try GooglePlayInspection.licensingKeyVerifier(try InspectInput.read(publicKey))
        return try GooglePlayInspection.inspectPurchase(
          data: data, signatureBase64: try InspectInput.read(signature), verifier: verifier)
      }
    }
  }
}
