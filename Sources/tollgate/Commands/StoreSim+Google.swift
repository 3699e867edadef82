import ArgumentParser
import Foundation
import StoreSimulator

/// `tollgate storesim google …`: the Google Play scenarios of a running simulator, over its
/// control API (`/sim/google/…`). Each prints the JSON answer.
extension StoreSim {
  struct Google: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Drive the simulated Google Play (purchases, renewals, pauses, refunds; see docs/storesim.md).",
      subcommands: [
        GooglePurchase.self, GoogleShow.self, GoogleAction.self, GooglePause.self, GoogleChangeProduct.self,
        GoogleRefund.self, GoogleChangePrice.self, GoogleTestNotification.self, GoogleServiceAccount.self,
      ])
  }

  struct GooglePurchase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "purchase", abstract: "Buy a subscription or a one-time product; prints the purchase token.")
    @Argument(help: "Product id (a subscription or a one-time product).") var productId: String
    @Option(help: "trial or intro (subscriptions).") var offer: String?
    @Option(help: "Package name (default: the only configured app).") var packageName: String?
    @Option(help: "obfuscatedExternalAccountId.") var account: String?
    @Flag(help: "A license tester's purchase (testPurchase).") var test = false
    @Flag(help: "Already acknowledged by the app (else Google refunds it after 3 days).") var acknowledged = false
    @Option(help: "Re-signup: link to this expired purchase token.") var linkedPurchaseToken: String?
    @OptionGroup var target: Target

    func run() async throws {
      var body: [String: any Sendable] = ["productId": productId, "testPurchase": test, "acknowledged": acknowledged]
      if let offer { body["offer"] = offer }
      if let packageName { body["packageName"] = packageName }
      if let account { body["obfuscatedExternalAccountId"] = account }
      if let linkedPurchaseToken { body["linkedPurchaseToken"] = linkedPurchaseToken }
      try await target.call("POST", "/sim/google/purchases", json: body)
    }
  }

  struct GoogleShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a purchase token's state.")
    @Argument(help: "Purchase token.") var token: String
    @OptionGroup var target: Target
    func run() async throws { try await target.call("GET", "/sim/google/purchases/\(token)") }
  }

  struct GoogleAction: AsyncParsableCommand {
    static let actions = [
      "acknowledge", "cancel", "restart", "fail-renewals", "recover-payment", "resume", "revoke", "chargeback",
      "confirm-price-change",
    ]
    static let configuration = CommandConfiguration(
      commandName: "action",
      abstract: "Act on a purchase token: \(actions.joined(separator: ", ")).")
    @Argument(help: "Purchase token.") var token: String
    @Argument(help: "What happens.") var action: String
    @OptionGroup var target: Target
    func validate() throws {
      guard Self.actions.contains(action) else {
        throw ValidationError("unknown action \(action); expected one of \(Self.actions.joined(separator: ", "))")
      }
    }
    func run() async throws { try await target.call("POST", "/sim/google/purchases/\(token)/\(action)", json: [:]) }
  }

  struct GooglePause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "pause", abstract: "Pause from the next renewal for a while (then it resumes by itself).")
    @Argument(help: "Purchase token.") var token: String
    @Argument(help: "How long: 30d, P1M, ….") var duration: String
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call("POST", "/sim/google/purchases/\(token)/pause", json: ["duration": duration])
    }
  }

  struct GoogleChangeProduct: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "change-product",
      abstract: "Upgrade (immediate, new linked token) or downgrade (DEFERRED to the renewal).")
    @Argument(help: "Purchase token.") var token: String
    @Argument(help: "The new subscription product id.") var productId: String
    @Option(help: "CHARGE_PRORATED_PRICE, WITH_TIME_PRORATION, CHARGE_FULL_PRICE, WITHOUT_PRORATION or DEFERRED.")
    var replacementMode: String?
    @OptionGroup var target: Target
    func run() async throws {
      var body: [String: any Sendable] = ["productId": productId]
      if let replacementMode { body["replacementMode"] = replacementMode }
      try await target.call("POST", "/sim/google/purchases/\(token)/change-product", json: body)
    }
  }

  struct GoogleRefund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "refund",
      abstract:
        "Refund the latest order and revoke it (a voided purchase); --keep refunds only: access stays, nothing is voided."
    )
    @Argument(help: "Purchase token.") var token: String
    @Option(help: "voidedReason: 0 other, 1 remorse, … 7 chargeback.") var reason = 0
    @Option(help: "voidedSource: 0 user, 1 developer, 2 Google.") var source = 0
    @Flag(help: "Refund only, without revoking: access stays; no voided purchase is listed or notified.")
    var keep = false
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call(
        "POST", "/sim/google/purchases/\(token)/refund",
        json: ["voidedReason": reason, "voidedSource": source, "revoke": !keep])
    }
  }

  struct GoogleChangePrice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "change-price",
      abstract: "Announce a new price from the next renewal; an increase waits for consent.")
    @Argument(help: "Purchase token.") var token: String
    @Argument(help: "New price in micros (12990000 = 12.99).") var priceMicros: Int64
    @Option(help: "Notice: the change applies at the first renewal at least this far away.") var notice: String?
    @OptionGroup var target: Target
    func run() async throws {
      var body: [String: any Sendable] = ["newPriceMicros": priceMicros]
      if let notice { body["notice"] = notice }
      try await target.call("POST", "/sim/google/purchases/\(token)/change-price", json: body)
    }
  }

  struct GoogleTestNotification: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "test-notification", abstract: "Push a testNotification, as the Play Console does.")
    @Option(help: "Package name (default: the only configured app).") var packageName: String?
    @OptionGroup var target: Target
    func run() async throws {
      var body: [String: any Sendable] = [:]
      if let packageName { body["packageName"] = packageName }
      try await target.call("POST", "/sim/google/test-notification", json: body)
    }
  }

  struct GoogleServiceAccount: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "service-account", abstract: "Print the service account's JSON key (token_uri = the simulator).")
    @OptionGroup var target: Target
    func run() async throws { try await target.call("GET", "/sim/google/service-account") }
  }
}
