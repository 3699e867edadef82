import Foundation
import TollgateSupport
import TollgateWorker

/// The user page's sections (issue 29): the entitlements now and why, the recent events, and the
/// webhook deliveries of those events, each an HTML `<section>` with every outside text escaped
/// and every date in the operator's time zone. The page around them (header, timeline, forms) is
/// the console's layout. Pure.
public enum UserPageSections {
  /// Each entitlement the user has or lacks now, and why: the source that decides it, every
  /// source with its rule, state and access end, the evidence by payload and signed date; what
  /// moved away and what was refused.
  public static func entitlements(_ overview: UserOverview, timeZone: TimeZone) -> String {
    var html = "<section class=\"entitlements\" aria-labelledby=\"entitlements-heading\">"
    html += "<h2 id=\"entitlements-heading\">Entitlements now, and why</h2>"
    html += "<p class=\"evaluated\">As evaluated at \(date(overview.evaluatedAtMs, timeZone)).</p>"
    if overview.entitlements.isEmpty {
      html += "<p>The catalog names no entitlement and no record gives the user one.</p>"
    }
    for explanation in overview.entitlements {
      html += entitlement(explanation, timeZone: timeZone)
    }
    if let first = overview.entitlements.first {
      html += elsewhere(first, timeZone: timeZone)
    }
    return html + "</section>"
  }

  static func entitlement(_ explanation: Explanation, timeZone: TimeZone) -> String {
    let name = HTML.escape(explanation.entitlement)
    let status = explanation.active ? "active" : "inactive"
    var html = "<article class=\"entitlement \(status)\" data-entitlement=\"\(name)\">"
    html += "<h3><code>\(name)</code>: <strong>\(explanation.active ? "entitled" : "not entitled")</strong>"
    if let state = explanation.state { html += " (\(HTML.escape(state)))" }
    html += "</h3>"
    guard !explanation.sources.isEmpty else {
      return html + "<p>No subscription or grant gives \(name).</p></article>"
    }
    html += "<table class=\"sources\"><thead><tr><th scope=\"col\">Decides</th><th scope=\"col\">Source</th>"
    html += "<th scope=\"col\">Product</th><th scope=\"col\">State</th><th scope=\"col\">Rule</th>"
    html += "<th scope=\"col\">Access until</th><th scope=\"col\">Verified</th><th scope=\"col\">Evidence</th>"
    html += "</tr></thead><tbody>"
    for source in explanation.sources {
      html += "<tr data-source=\"\(HTML.escape(source.source))\"\(source.decides ? " class=\"decides\"" : "")>"
      html += "<td>\(source.decides ? "<span aria-label=\"decides\">→ decides</span>" : "")</td>"
      html += "<td>\(HTML.escape(source.store)) <code>\(HTML.escape(sourceId(source.source)))</code>"
      html += " (\(HTML.escape(source.environment)))</td>"
      html += "<td><code>\(HTML.escape(source.productId))</code></td>"
      html += "<td>\(HTML.escape(source.state))\(source.active ? "" : " (no access)")"
      html += source.willRenew ? ", will renew" : ", will not renew"
      html += "</td><td><code>\(HTML.escape(source.rule))</code></td>"
      html += "<td>\(date(source.accessEndsAtMs, timeZone))</td>"
      html += "<td>\(date(source.verifiedAtMs, timeZone))"
      if let via = source.evidenceSource { html += " via \(HTML.escape(via))" }
      html += "</td><td>\(evidence(source, timeZone: timeZone))</td></tr>"
    }
    return html + "</tbody></table></article>"
  }

  /// The payloads a source's state rests on, each with when its store signed it, and what else
  /// bears on it (the grant's note, the purchases it replaced, checks stopped).
  static func evidence(_ source: Explanation.Source, timeZone: TimeZone) -> String {
    var items: [String] = []
    for payload in source.payloads {
      let signed = payload.signedAtMs.map { "signed \(date($0, timeZone))" } ?? "no signed date"
      items.append(
        "\(HTML.escape(payload.kind)) <code>\(HTML.escape(payload.id))</code>, \(signed), "
          + "sha256 <code>\(HTML.escape(String(payload.sha256.prefix(16))))…</code>")
    }
    if let note = source.grantNote { items.append("note: \(HTML.escape(note))") }
    if !source.replaces.isEmpty {
      items.append("replaces \(source.replaces.map { "<code>\(HTML.escape($0))</code>" }.joined(separator: " ← "))")
    }
    if let stopped = source.checksStopped {
      items.append("checks stopped \(date(stopped.atMs, timeZone)): \(HTML.escape(stopped.reason))")
    }
    guard !items.isEmpty else { return "none kept" }
    return "<ul>" + items.map { "<li>\($0)</li>" }.joined() + "</ul>"
  }

  /// What every explanation of the user shares: purchases that moved to another user, and the
  /// user's rejected submissions (refused claims, the store's final no).
  static func elsewhere(_ explanation: Explanation, timeZone: TimeZone) -> String {
    var html = ""
    if !explanation.transferredAway.isEmpty {
      html += "<h3>Transferred away</h3><ul class=\"transferred-away\">"
      for moved in explanation.transferredAway {
        html += "<li>\(HTML.escape(moved.store)) <code>\(HTML.escape(moved.purchaseId))</code> "
        html += "(\(HTML.escape(moved.productId))) now belongs to <code>\(HTML.escape(moved.toUserId))</code>"
        if let at = moved.atMs { html += " since \(date(at, timeZone))" }
        if let detail = moved.detail { html += ": \(HTML.escape(detail))" }
        html += "</li>"
      }
      html += "</ul>"
    }
    if !explanation.rejectedSubmissions.isEmpty {
      html += "<h3>Rejected submissions</h3><ul class=\"rejected\">"
      for rejected in explanation.rejectedSubmissions {
        html += "<li>\(date(rejected.rejectedAtMs ?? rejected.receivedAtMs, timeZone)): "
        html += HTML.escape(rejected.store) + (rejected.productId.map { " \(HTML.escape($0))" } ?? "")
        html += ": \(HTML.escape(rejected.reason))</li>"
      }
      html += "</ul>"
    }
    return html
  }

  /// `app_store:1001` → `1001`.
  static func sourceId(_ source: String) -> String {
    guard let colon = source.firstIndex(of: ":") else { return source }
    return String(source[source.index(after: colon)...])
  }

  /// A date in the operator's zone, as a `<time>` element with the instant in UTC.
  static func date(_ ms: Int64, _ timeZone: TimeZone) -> String {
    let text = HTML.escape(ConsoleDate.text(ms: ms, timeZone: timeZone))
    guard ms < ConsoleDate.latestMs else { return text }
    return "<time datetime=\"\(ConsoleDate.machine(ms: ms))\">\(text)</time>"
  }
}
