import ArgumentParser
import GooglePlay
import TollgateCore

extension Inspect {
  struct GoogleNotification: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "google-notification",
      abstract:
        "A Real-time developer notification: a Pub/Sub push envelope, a DeveloperNotification or its base64 data; with --token, the push's OIDC token verified too."
    )

    @Argument(help: "File holding the envelope, the notification or message.data ('-' for stdin).") var file: String
    @Option(help: "File holding the push request's OIDC token (the Authorization header's, 'Bearer ' optional).")
    var token: String?
    @Option(help: "Google's signing keys: a JWKS (oauth2/v3/certs) or {kid: PEM certificate} (oauth2/v1/certs).")
    var certs: String?
    @Option(help: "The push subscription's audience.") var audience: String?
    @Option(help: "The push subscription's service account (email).") var serviceAccount: String?
    @Option(help: "Validation time in ms since the epoch. Default: now.") var at: Int64?

    func validate() throws {
      if token != nil {
        guard certs != nil, audience != nil else { throw ValidationError("--token needs --certs and --audience") }
      } else if certs != nil || audience != nil || serviceAccount != nil {
        throw ValidationError("--certs, --audience and --service-account check a token: give --token too")
      }
    }

    func run() throws {
      try Inspect.runGoogle {
        let text = try InspectInput.read(file)
        return try GooglePlayInspection.inspectNotification(text, authentication: try authentication())
      }
    }

    /// The token check the options ask for, or `nil` without `--token`.
    func authentication() throws -> GooglePlayInspection.PushAuthenticationCheck? {
      guard let token, let certs, let audience else { return nil }
      let compact = try InspectInput.read(token)
      let keys: GoogleKeySet
      do {
        keys = try GoogleKeySet(json: try InspectInput.readBytes(certs))
      } catch let error as OIDCVerificationError {
        throw InspectInput.Unreadable(message: "\(certs): \(error.message)")
      }
      return GooglePlayInspection.PushAuthenticationCheck(
        token: compact, keys: keys,
        config: OIDCTokenVerifier.Config(audience: audience, serviceAccountEmail: serviceAccount),
        atMs: at ?? SystemClock.nowMs())
    }
  }
}
