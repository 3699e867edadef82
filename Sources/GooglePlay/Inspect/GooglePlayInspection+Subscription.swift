import Foundation
import TollgateCore

extension GooglePlayInspection {
  /// Inspects a subscription resource: subscriptionsv2 (`SubscriptionPurchaseV2`) or v1
  /// (`SubscriptionPurchase`, by its `kind` or, without one, by its `…Millis` fields), at `atMs`.
  ///
  /// Invalid when it is Google's error body (`api_error`), another kind of resource
  /// (`not_a_subscription`), does not decode (`malformed_resource`), or is one Tollgate would
  /// grant nothing for although Google may mean access: a state Tollgate does not know
  /// (`unknown_subscription_state`) or an entitling state without any expiry
  /// (`entitling_state_without_expiry`). The summary is there whenever the resource decodes.
  /// Throws `Unreadable` unless `json` is a JSON object.
  public static func inspectSubscription(json: [UInt8], atMs: Int64) throws(Unreadable) -> Report {
    guard let object = jsonObject(json) else { throw Unreadable("not a JSON object") }
    var report = Report(payload: object)
    if let error = object["error"] as? [String: Any] {
      let status = (error["code"] as? NSNumber).map { "\($0.intValue)" } ?? "an error"
      let message = error["message"] as? String ?? "no message"
      report.problem = Problem(code: "api_error", message: "Google's error body (\(status)): \(message)")
      return report
    }
    let kind = object["kind"] as? String
    let isLegacy: Bool
    switch kind {
    case nil: isLegacy = legacyKeys.contains { object[$0] != nil }
    case SubscriptionKind.v1?: isLegacy = true
    case SubscriptionKind.v2?: isLegacy = false
    case let other?:
      report.problem = Problem(code: "not_a_subscription", message: "kind \(other) is not a subscription resource")
      return report
    }
    do {
      if isLegacy {
        let resource = try JSONDecoder().decode(SubscriptionPurchase.self, from: Data(json))
        report.summary = GooglePlaySubscriptionSummary(legacy: resource, atMs: atMs).jsonObject
        report.problem = problem(legacy: resource)
      } else {
        let resource = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(json))
        report.summary = GooglePlaySubscriptionSummary(resource: resource, atMs: atMs).jsonObject
        report.problem = problem(resource: resource, atMs: atMs)
      }
    } catch {
      let name = isLegacy ? "SubscriptionPurchase (v1)" : "SubscriptionPurchaseV2"
      report.problem = Problem(code: "malformed_resource", message: "not a \(name): \(describe(error))")
    }
    return report
  }

  /// Why Tollgate would grant nothing for a subscriptionsv2 resource Google may mean to entitle;
  /// `nil` when the mapping withholds nothing.
  public static func problem(resource: SubscriptionPurchaseV2, atMs: Int64) -> Problem? {
    let mapping = GooglePlayMapping(
      subscription: resource, purchaseToken: GooglePlaySubscriptionSummary.purchaseToken, packageName: "",
      asOfMs: atMs)
    for note in mapping.notes where note.failsClosed {
      switch note {
      case .unknownSubscriptionState(let raw):
        return Problem(
          code: "unknown_subscription_state",
          message: "subscriptionState \(raw) is not one Tollgate knows: it grants nothing until it is understood")
      case .entitlingStateWithoutExpiry(let raw):
        return Problem(
          code: "entitling_state_without_expiry",
          message:
            "subscriptionState \(raw ?? "(none)") entitles, but no line item has an expiryTime: Tollgate grants nothing"
        )
      default:
        return Problem(code: "fails_closed", message: "Tollgate grants nothing for this resource: \(note)")
      }
    }
    return nil
  }

  /// A v1 resource without `expiryTimeMillis` grants nothing.
  public static func problem(legacy resource: SubscriptionPurchase) -> Problem? {
    guard resource.expiryTimeMillis == nil else { return nil }
    return Problem(
      code: "entitling_state_without_expiry", message: "the resource has no expiryTimeMillis: Tollgate grants nothing")
  }

  enum SubscriptionKind {
    static let v1 = "androidpublisher#subscriptionPurchase"
    static let v2 = "androidpublisher#subscriptionPurchaseV2"
  }

  /// Fields only a v1 resource has.
  static let legacyKeys = ["expiryTimeMillis", "startTimeMillis", "paymentState", "autoRenewing", "cancelReason"]
}
