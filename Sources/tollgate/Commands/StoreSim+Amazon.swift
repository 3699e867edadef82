import ArgumentParser
import Foundation
import StoreSimulator

/// `tollgate storesim amazon …`: the Amazon Appstore scenarios of a running simulator, over its
/// control API (`/sim/amazon/…`). Each prints the JSON answer.
extension StoreSim {
  struct Amazon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Drive the simulated Amazon Appstore (purchases, renewals, grace, tier changes; see docs/storesim.md).",
      subcommands: [
        AmazonPurchase.self, AmazonShow.self, AmazonAction.self, AmazonAutoRenew.self, AmazonCancel.self,
        AmazonChangeTier.self, AmazonNotificationURL.self, AmazonCertificate.self,
      ])
  }

  struct AmazonPurchase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "purchase", abstract: "Buy a subscription (term or parent SKU), an entitlement or a consumable.")
    @Argument(help: "SKU.") var sku: String
    @Option(help: "The Amazon user id (default: a new one).") var userId: String?
    @Option(help: "App package name (default: the only configured app).") var appPackageName: String?
    @Flag(help: "Start with the product's free trial.") var freeTrial = false
    @Flag(help: "An App Tester purchase: answered by the RVS Cloud Sandbox only (testTransaction).") var sandbox = false
    @OptionGroup var target: Target

    func run() async throws {
      var body: [String: any Sendable] = ["sku": sku, "freeTrial": freeTrial, "sandbox": sandbox]
      if let userId { body["userId"] = userId }
      if let appPackageName { body["appPackageName"] = appPackageName }
      try await target.call("POST", "/sim/amazon/purchases", json: body)
    }
  }

  struct AmazonShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "show", abstract: "Print a receipt's state (and its subscription's).")
    @Argument(help: "Receipt id.") var receiptId: String
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call("GET", "/sim/amazon/receipts/\(StoreSim.amazonSegment(receiptId))")
    }
  }

  struct AmazonAction: AsyncParsableCommand {
    static let actions = ["refund", "fail-renewals", "recover-payment"]
    static let configuration = CommandConfiguration(
      commandName: "action", abstract: "Act on a receipt's purchase: \(actions.joined(separator: ", ")).")
    @Argument(help: "Receipt id (any receipt of the subscription).") var receiptId: String
    @Argument(help: "What happens.") var action: String
    @OptionGroup var target: Target
    func validate() throws {
      guard Self.actions.contains(action) else {
        throw ValidationError("unknown action \(action); expected one of \(Self.actions.joined(separator: ", "))")
      }
    }
    func run() async throws {
      try await target.call("POST", "/sim/amazon/receipts/\(StoreSim.amazonSegment(receiptId))/\(action)", json: [:])
    }
  }

  struct AmazonAutoRenew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "auto-renew", abstract: "Turn auto-renew on or off.")
    @Argument(help: "Receipt id.") var receiptId: String
    @Argument(help: "on or off.") var state: String
    @OptionGroup var target: Target
    func validate() throws {
      guard ["on", "off"].contains(state) else { throw ValidationError("expected on or off") }
    }
    func run() async throws {
      try await target.call(
        "POST", "/sim/amazon/receipts/\(StoreSim.amazonSegment(receiptId))/auto-renew", json: ["enabled": state == "on"]
      )
    }
  }

  struct AmazonCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "cancel", abstract: "Cancel now (cancelDate = now): 1 the customer, 2 Amazon's system, 0 other.")
    @Argument(help: "Receipt id.") var receiptId: String
    @Option(help: "cancelReason: 0, 1 or 2.") var reason = 1
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call(
        "POST", "/sim/amazon/receipts/\(StoreSim.amazonSegment(receiptId))/cancel", json: ["cancelReason": reason])
    }
  }

  struct AmazonChangeTier: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "change-tier",
      abstract: "Move to another tier now (new receipt, the old one cancelled with reason 4) or at the renewal.")
    @Argument(help: "Receipt id.") var receiptId: String
    @Argument(help: "The new tier's term SKU (or parent SKU).") var sku: String
    @Flag(help: "Apply at the next renewal (SUBSCRIPTION_MODIFIED_DEFERRED).") var deferred = false
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call(
        "POST", "/sim/amazon/receipts/\(StoreSim.amazonSegment(receiptId))/change-tier",
        json: ["sku": sku, "immediate": !deferred])
    }
  }

  struct AmazonNotificationURL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "notification-url",
      abstract: "Subscribe a URL to the app's RTN topic (a SubscriptionConfirmation is posted; held until confirmed).")
    @Argument(help: "URL (omit to stop notifications).") var url: String?
    @Option(help: "App package name (default: the only configured app).") var appPackageName: String?
    @OptionGroup var target: Target
    func run() async throws {
      var body: [String: any Sendable] = [:]
      if let url { body["url"] = url }
      if let appPackageName { body["appPackageName"] = appPackageName }
      try await target.call("POST", "/sim/amazon/notification-url", json: body)
    }
  }

  struct AmazonCertificate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "sns-certificate", abstract: "Print the SNS signing certificate (PEM).")
    @OptionGroup var target: Target
    func run() async throws { try await target.call("GET", "/sim/amazon/sns-certificate") }
  }

  /// A receipt id as one path segment: percent-encoded (ids hold `:`, `=`, `#`).
  static func amazonSegment(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}
