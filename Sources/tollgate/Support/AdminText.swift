import ArgumentParser
import TollgateClient

/// How the admin commands print the admin messages for a person (`--json` prints the proto3 JSON
/// mapping instead): one answer, whether it came from a service (--server) or the database here.
enum AdminText {
  static func explain(_ response: Tollgate_V1_ExplainResponse) -> String {
    var lines = [
      "\(response.userID) \(response.active ? "HAS" : "does NOT have") \(response.entitlement) at \(AdminOutput.time(response.evaluatedAt)): \(QueryOutput.name(response.state))"
    ]
    lines.append(response.sources.isEmpty ? "sources: none" : "sources:")
    for source in response.sources {
      lines.append(
        "  \(source.decides ? "*" : "-") \(source.source) \(QueryOutput.name(source.store)) \(source.productID): \(source.active ? "active" : "inactive"), \(QueryOutput.name(source.state)), access until \(AdminOutput.time(source.accessEndsAt))"
      )
      var facts: [String] = []
      if !source.rule.isEmpty { facts.append("rule \(source.rule)") }
      if !source.evidenceSource.isEmpty { facts.append("evidence \(source.evidenceSource)") }
      if !source.verifiedAt.isEmpty { facts.append("verified \(source.verifiedAt)") }
      facts.append(source.willRenew ? "renews" : "does not renew")
      lines.append("      " + facts.joined(separator: ", "))
      if !source.grantNote.isEmpty { lines.append("      note: \(source.grantNote)") }
      if !source.replaces.isEmpty { lines.append("      replaces: \(source.replaces.joined(separator: ", "))") }
      if !source.checksStoppedReason.isEmpty {
        lines.append("      checks stopped \(AdminOutput.time(source.checksStoppedAt)): \(source.checksStoppedReason)")
      }
      for payload in source.payloads {
        lines.append(
          "      payload \(payload.kind) \(payload.id) signed \(AdminOutput.time(payload.signedAt)) sha256 \(payload.sha256)"
        )
      }
    }
    if !response.recentEvents.isEmpty {
      lines.append("recent events:")
      for event in response.recentEvents {
        lines.append(
          "  \(event.at) \(event.kind) \(event.storeSubscriptionID) \(QueryOutput.name(event.state)) \(event.detail)"
            .trimmingTrailingSpaces())
      }
    }
    if !response.transferredAway.isEmpty {
      lines.append("transferred away:")
      for away in response.transferredAway {
        lines.append(
          "  \(away.at) \(QueryOutput.name(away.store)) \(away.productID) (\(away.storeSubscriptionID)) to \(away.toUserID) \(away.detail)"
            .trimmingTrailingSpaces())
      }
    }
    if !response.rejectedSubmissions.isEmpty {
      lines.append("rejected submissions:")
      for rejected in response.rejectedSubmissions {
        lines.append(
          "  \(rejected.rejectedAt) \(QueryOutput.name(rejected.store)) \(rejected.productID): \(rejected.reason)")
      }
    }
    return lines.joined(separator: "\n")
  }

  static func timeline(_ response: Tollgate_V1_GetTimelineResponse) -> String {
    var lines = ["timeline of \(response.userID) at \(AdminOutput.time(response.evaluatedAt))"]
    for entry in response.entries {
      let span = entry.until.isEmpty ? entry.at : "\(entry.at) .. \(entry.until)"
      var text = "  \(span) \(entry.kind) [\(entry.source)] \(QueryOutput.name(entry.store)) \(entry.productID)"
      if !entry.storeSubscriptionID.isEmpty { text += " (\(entry.storeSubscriptionID))" }
      if entry.state != .unspecified { text += " \(QueryOutput.name(entry.state))" }
      if !entry.detail.isEmpty { text += ": \(entry.detail)" }
      lines.append(text.trimmingTrailingSpaces())
    }
    return lines.joined(separator: "\n")
  }

  static func lookUp(_ response: Tollgate_V1_LookUpResponse, identifier: String) -> String {
    var lines = [
      response.matches.isEmpty ? "no purchase matches \(identifier)" : "\(response.matches.count) match(es):"
    ]
    for match in response.matches {
      var text =
        "  \(QueryOutput.name(match.store)) \(match.productID) chain \(match.storeSubscriptionID) as \(IdentifierKindArgument.name(match.matchedAs))"
      if !match.transactionID.isEmpty { text += ", transaction \(match.transactionID)" }
      text += match.userID.isEmpty ? ", bound to nobody" : ", user \(match.userID)"
      text +=
        ", \(QueryOutput.name(match.state)) until \(AdminOutput.time(match.accessEndsAt)), \(QueryOutput.name(match.environment))"
      if !match.known { text += ", NOT verified by Tollgate" }
      if !match.erasedAt.isEmpty { text += ", erased \(match.erasedAt)" }
      lines.append(text)
    }
    for note in response.notes { lines.append("note: \(note)") }
    return lines.joined(separator: "\n")
  }

  static func erase(_ response: Tollgate_V1_EraseUserResponse, user: String) -> String {
    let verb = response.dryRun ? "would erase" : "erased"
    return """
      \(verb) \(user):
        subscriptions unbound: \(response.subscriptionsUnbound)
        grants:                \(response.grants)
        events:                \(response.events) (\(response.eventsScrubbed) scrubbed)
        submissions:           \(response.submissions)
        entitlement records:   \(response.entitlementRecords)
      """
  }
}

/// `--kind` of `tollgate lookup`: the proto's IdentifierKind by its short name
/// (`app_store_order_id`) or its full name (`IDENTIFIER_KIND_APP_STORE_ORDER_ID`).
struct IdentifierKindArgument: ExpressibleByArgument {
  var kind: Tollgate_V1_IdentifierKind

  static let names: [(String, Tollgate_V1_IdentifierKind)] = [
    ("any", .unspecified),
    ("app_store_transaction_id", .appStoreTransactionID),
    ("app_store_original_transaction_id", .appStoreOriginalTransactionID),
    ("app_store_order_id", .appStoreOrderID),
    ("google_play_purchase_token", .googlePlayPurchaseToken),
    ("google_play_order_id", .googlePlayOrderID),
    ("amazon_receipt_id", .amazonReceiptID),
    ("amazon_user_id", .amazonUserID),
  ]

  init?(argument: String) {
    let short = argument.lowercased().replacing("identifier_kind_", with: "")
    guard let found = Self.names.first(where: { $0.0 == short }) else { return nil }
    kind = found.1
  }

  static var allValueStrings: [String] { names.map(\.0) }

  static func name(_ kind: Tollgate_V1_IdentifierKind) -> String {
    names.first { $0.1 == kind }?.0 ?? "unknown(\(kind.rawValue))"
  }
}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var text = self
    while text.last == " " { text.removeLast() }
    return text
  }
}
