import Foundation
import TollgateSupport
import TollgateWorker

extension UserPageSections {
  /// The user's recent events, newest first: when, what, which purchase and product, the state
  /// after it, the detail, and the event's id (what a webhook receiver saw as `Tollgate-Event-Id`).
  public static func events(_ overview: UserOverview, timeZone: TimeZone) -> String {
    var html = "<section class=\"events\" aria-labelledby=\"events-heading\">"
    html += "<h2 id=\"events-heading\">Recent events</h2>"
    guard !overview.deliveries.isEmpty else { return html + "<p>No events.</p></section>" }
    html += "<table><thead><tr><th scope=\"col\">When</th><th scope=\"col\">Event</th><th scope=\"col\">Purchase</th>"
    html += "<th scope=\"col\">Product</th><th scope=\"col\">State</th><th scope=\"col\">Detail</th>"
    html += "<th scope=\"col\">Event id</th></tr></thead><tbody>"
    for entry in overview.deliveries {
      let event = entry.event.event
      html += "<tr data-event=\"\(entry.event.id)\" data-kind=\"\(HTML.escape(event.kind))\">"
      html += "<td>\(date(event.atMs, timeZone))</td><td>\(HTML.escape(event.kind))</td>"
      html +=
        "<td>\(HTML.escape(TimelineText.storeName(event.store))) <code>\(HTML.escape(event.purchaseId))</code></td>"
      html += "<td>\(event.productId.map { "<code>\(HTML.escape($0))</code>" } ?? "")</td>"
      html += "<td>\(HTML.escape(event.state?.rawValue ?? ""))</td>"
      html += "<td>\(HTML.escape(detail(event)))</td>"
      html += "<td><code>\(HTML.escape(entry.event.eventId))</code></td></tr>"
    }
    return html + "</tbody></table></section>"
  }

  /// The webhook deliveries of those events: per endpoint, how many are delivered, pending and
  /// failed, then each event's delivery to each endpoint with its attempts and last status.
  public static func deliveries(_ overview: UserOverview, timeZone: TimeZone) -> String {
    var html = "<section class=\"deliveries\" aria-labelledby=\"deliveries-heading\">"
    html += "<h2 id=\"deliveries-heading\">Webhook deliveries</h2>"
    let endpoints = overview.deliveries.first?.deliveries.map(\.endpoint) ?? []
    guard !endpoints.isEmpty else {
      return html + "<p>No webhook endpoint has received events from this database yet.</p></section>"
    }
    html += "<table class=\"delivery-summary\"><thead><tr><th scope=\"col\">Endpoint</th>"
    html += "<th scope=\"col\">Delivered</th><th scope=\"col\">Pending</th><th scope=\"col\">Failed</th>"
    html += "</tr></thead><tbody>"
    for endpoint in endpoints {
      let states = overview.deliveries.compactMap { $0.deliveries.first { $0.endpoint == endpoint }?.state }
      let failed = states.filter { $0 == .failing || $0 == .parked }.count
      let pending = states.filter { $0 == .pending || $0 == .queued }.count
      html += "<tr><th scope=\"row\">\(HTML.escape(displayName(endpoint)))</th>"
      html += "<td>\(states.filter { $0 == .delivered }.count)</td><td>\(pending)</td><td>\(failed)</td></tr>"
    }
    html += "</tbody></table>"
    html += "<table class=\"delivery-events\"><thead><tr><th scope=\"col\">Event</th>"
    for endpoint in endpoints { html += "<th scope=\"col\">\(HTML.escape(displayName(endpoint)))</th>" }
    html += "</tr></thead><tbody>"
    for entry in overview.deliveries {
      let event = entry.event.event
      html += "<tr data-event=\"\(entry.event.id)\"><th scope=\"row\">\(HTML.escape(event.kind)), "
      html += "\(date(event.atMs, timeZone))</th>"
      for endpoint in endpoints {
        guard let delivery = entry.deliveries.first(where: { $0.endpoint == endpoint }) else {
          html += "<td></td>"
          continue
        }
        html += "<td class=\"delivery \(delivery.state.rawValue)\" data-state=\"\(delivery.state.rawValue)\">"
        html += "\(status(delivery, timeZone: timeZone))</td>"
      }
      html += "</tr>"
    }
    html += "</tbody></table>"
    html += "<p class=\"note\">Delivered: the endpoint's cursor is past the event (it answered 2xx, or its "
    html += "<code>events</code> filter does not take the kind, or it was added later). Failed: failing at the "
    html += "head of its stream, or parked after the retry limit (<code>tollgate webhooks redeliver</code>).</p>"
    return html + "</section>"
  }

  /// One event's delivery to one endpoint in words: its state, attempts and last status.
  static func status(_ delivery: WebhookDeliveryStatus, timeZone: TimeZone) -> String {
    let attempts = "\(delivery.attempts) failed attempt\(delivery.attempts == 1 ? "" : "s")"
    let since = delivery.firstFailedAtMs.map { ", the first \(date($0, timeZone))" } ?? ""
    let last = delivery.lastError.map { "; last status \(HTML.escape($0))" } ?? ""
    switch delivery.state {
    case .delivered:
      return delivery.attempts > 0 ? "delivered after \(attempts)\(since)" : "delivered"
    case .pending:
      return "pending"
    case .failing:
      return "failing: \(attempts)\(since); retried"
    case .parked:
      let parked = delivery.parkedAtMs.map { " \(date($0, timeZone))" } ?? ""
      return "failed: parked\(parked) after \(attempts)\(last)"
    case .queued:
      let parked = delivery.parkedAtMs.map { " (parked \(date($0, timeZone)))" } ?? ""
      return "queued for redelivery\(parked)\(delivery.attempts > 0 ? ", \(attempts) since" : "")\(last)"
    }
  }

  /// An event's detail: its own, a grant's note and who, a product change, or a reason.
  static func detail(_ event: WorkerEvent) -> String {
    var parts: [String] = []
    if let detail = event.detail { parts.append(detail) }
    if let change = event.details.productChange {
      parts.append(
        "\(change.fromProductId) → \(change.toProductId)" + (change.direction.map { " (\($0.rawValue))" } ?? ""))
    }
    if let grant = event.details.grant {
      parts.append(
        [grant.entitlement, grant.actor.map { "by \($0)" }, grant.note].compactMap { $0 }.joined(separator: ", "))
    }
    if let reason = event.details.reason, event.detail == nil { parts.append(reason) }
    return parts.joined(separator: "; ")
  }

  /// An endpoint URL without its query, fragment or credentials (as the worker's logs name it).
  static func displayName(_ url: String) -> String {
    guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
    else { return "webhook" }
    return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")\(components.path)"
  }
}
