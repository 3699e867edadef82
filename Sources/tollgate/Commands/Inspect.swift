import AppStore
import ArgumentParser
import Foundation
import TollgateCrypto

/// `tollgate inspect`: what does this receipt, JWS or notification really say, and is it genuine?
struct Inspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Verify and decode a store payload. Prints JSON; exit 0 valid, 1 invalid, 2 unreadable input or bad usage.",
    subcommands: [
      AppleJWS.self, AppleReceipt.self, AppleNotification.self, GoogleSubscription.self, GoogleNotification.self,
      GooglePurchase.self, AmazonReceipt.self, AmazonNotification.self,
    ])

  struct AppleOptions: ParsableArguments {
    @Option(
      name: .customLong("root"),
      help: "Trusted root certificate (DER or PEM); repeatable. Default: Apple's pinned roots.")
    var roots: [String] = []

    @Option(help: "Expected environment: production, sandbox, xcode or local-testing. Default: the payload's own.")
    var environment: String?

    @Option(help: "Expected bundle id. Default: the payload's own.")
    var bundleId: String?

    @Option(help: "Expected app Apple id (checked in production). Default: the payload's own.")
    var appAppleId: Int64?

    @Option(help: "Validation time in ms since the epoch. Default: the payload's signedDate.")
    var at: Int64?

    @Flag(help: "In production, also accept sandbox payloads.")
    var allowSandbox = false

    func validate() throws {
      if let environment, Self.environment(environment) == nil {
        throw ValidationError("--environment must be production, sandbox, xcode or local-testing")
      }
    }

    static func environment(_ name: String) -> AppStoreEnvironment? {
      switch name.lowercased() {
      case "production": .production
      case "sandbox": .sandbox
      case "xcode": .xcode
      case "local-testing", "localtesting": .localTesting
      default: nil
      }
    }

    func rootCertificates() throws -> [Certificate] {
      do {
        return roots.isEmpty ? try AppleRootCertificates.loadPinned() : try AppleRootCertificates.load(files: roots)
      } catch {
        throw InspectInput.Unreadable(message: "\(error)")
      }
    }

    /// A verifier whose unset expectations are taken from the payload itself. Xcode and local
    /// testing payloads are not signed by the App Store: they need no roots (as in Apple's own
    /// library), so none are loaded for them.
    func verifier(defaultsFrom payload: InspectInput.PayloadFacts) throws -> SignedDataVerifier {
      let expected = environment.flatMap(Self.environment) ?? payload.environment ?? .production
      var config = SignedDataVerifier.Config(
        rootCertificates: expected.isSignedByAppStore ? try rootCertificates() : [],
        bundleId: bundleId ?? payload.bundleId ?? "", appAppleId: appAppleId ?? payload.appAppleId,
        environment: expected, allowSandbox: allowSandbox)
      config.validationTimeMs = at
      return SignedDataVerifier(config: config)
    }
  }

  struct AppleJWS: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "apple-jws", abstract: "A signed transaction, renewal info, app transaction or notification payload."
    )

    @Argument(help: "File holding the compact JWS ('-' for stdin).") var file: String
    @Option(help: "transaction, renewal-info, app-transaction or notification. Default: from the payload's fields.")
    var kind: String?
    @OptionGroup var options: AppleOptions

    func run() throws {
      try InspectInput.exitWith {
        let text = try InspectInput.read(file)
        let facts = try InspectInput.facts(ofJWS: text)
        let resolvedKind: AppStoreInspection.Kind
        if let kind {
          guard let parsed = AppStoreInspection.Kind(rawValue: kind) else {
            throw ValidationError("--kind must be transaction, renewal-info, app-transaction or notification")
          }
          resolvedKind = parsed
        } else {
          resolvedKind = facts.kind
        }
        return AppStoreInspection.inspectJWS(
          text, kind: resolvedKind, verifier: try options.verifier(defaultsFrom: facts))
      }
    }
  }

  struct AppleNotification: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "apple-notification",
      abstract: "An App Store Server Notification V2 body or signedPayload; nested transaction and renewal info too.")

    @Argument(help: "File holding the body or the signedPayload ('-' for stdin).") var file: String
    @OptionGroup var options: AppleOptions

    func run() throws {
      try InspectInput.exitWith {
        let text = try InspectInput.read(file)
        let (signed, facts) = try InspectInput.notificationJWS(in: text)
        return AppStoreInspection.inspectJWS(
          signed, kind: .notification, verifier: try options.verifier(defaultsFrom: facts))
      }
    }
  }

  struct AppleReceipt: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "apple-receipt", abstract: "A legacy app receipt (base64 PKCS#7).")

    @Argument(help: "File holding the base64 receipt ('-' for stdin).") var file: String
    @OptionGroup var options: AppleOptions

    func run() throws {
      try InspectInput.exitWith {
        let text = try InspectInput.read(file)
        try InspectInput.requireReceipt(text)
        var verifier = AppReceiptVerifier(rootCertificates: try options.rootCertificates(), bundleId: options.bundleId)
        verifier.validationTimeMs = options.at
        return AppStoreInspection.inspectReceipt(text, verifier: verifier)
      }
    }
  }
}
