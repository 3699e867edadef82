import Foundation
import TollgateCore
import TollgateSupport

/// The search page: what a query found, as a user id and as store identifiers.
enum ConsoleSearchPage {
  struct Found: Sendable {
    var query: String
    /// Tollgate holds something of a user with this id.
    var isUser = false
    var matches: [LookupMatch] = []
    var notes: [String] = []

    /// The one user everything found belongs to, when that is all there is to show: the page
    /// then goes straight to that user.
    var onlyUser: String? {
      let users = Set(matches.map(\.userId)).union(isUser ? [query] : [])
      guard users.count == 1, let user = users.first, let user, notes.isEmpty else { return nil }
      return user
    }
  }

  static let empty = """
    <section class="search-help">
    <h1>Search</h1>
    <p>Type a user id, or any store identifier: an App Store transaction, original transaction or order id, \
    a Google Play purchase token or order id (<code>GPA.…</code>), an Amazon receipt id or Amazon user id.</p>
    </section>
    """

  static func render(_ found: Found, timeZone: TimeZone) -> String {
    var html = "<section class=\"results\"><h1>Results for <q id=\"query\">\(HTML.escape(found.query))</q></h1>"
    for note in found.notes { html += "<p class=\"note\">\(HTML.escape(note))</p>" }
    if found.isUser {
      html +=
        "<p>A user with this id: <a class=\"user-link\" href=\"\(HTML.escape(SupportConsole.userPath(found.query)))\">"
      html += "\(HTML.escape(found.query))</a></p>"
    }
    guard !found.matches.isEmpty else {
      if !found.isUser { html += "<p id=\"no-match\">No user and no store purchase matches.</p>" }
      return html + "</section>"
    }
    html += "<table class=\"matches\"><thead><tr><th scope=\"col\">Store</th><th scope=\"col\">Matched as</th>"
    html += "<th scope=\"col\">Purchase</th><th scope=\"col\">Product</th><th scope=\"col\">State</th>"
    html += "<th scope=\"col\">Access ends</th><th scope=\"col\">User</th></tr></thead><tbody>"
    for match in found.matches { html += row(match, timeZone: timeZone) }
    return html + "</tbody></table></section>"
  }

  static func row(_ match: LookupMatch, timeZone: TimeZone) -> String {
    let purchase = Self.shortened(match.purchaseId)
    var html = "<tr><td>\(HTML.escape(TimelineText.storeName(match.store)))"
    if let environment = match.environment, environment != .production { html += " (\(environment.rawValue))" }
    html += "</td><td>\(HTML.escape(match.matchedAs.rawValue.replacingOccurrences(of: "_", with: " ")))</td>"
    html += "<td><code title=\"\(HTML.escape(match.purchaseId))\">\(HTML.escape(purchase))</code></td>"
    html += "<td>\(HTML.escape(match.productId))</td>"
    html +=
      "<td>\(match.known ? HTML.escape(match.state?.rawValue ?? "never verified") : "not verified by Tollgate")</td>"
    html += "<td>\(accessEnd(match.accessEndsAtMs, timeZone: timeZone))</td><td>"
    if let user = match.userId {
      html += "<a class=\"user-link\" href=\"\(HTML.escape(SupportConsole.userPath(user)))\">\(HTML.escape(user))</a>"
    } else if let erased = match.erasedAtMs {
      html += "nobody (erased \(HTML.escape(ConsoleDate.text(ms: erased, timeZone: timeZone))))"
    } else {
      html += "nobody"
    }
    return html + "</td></tr>"
  }

  static func accessEnd(_ ms: Int64?, timeZone: TimeZone) -> String {
    guard let ms else { return "" }
    return ms == .max ? "never (lifetime)" : HTML.escape(ConsoleDate.text(ms: ms, timeZone: timeZone))
  }

  /// A long id (a purchase token) as its first 24 and last 8 characters; the whole one is the
  /// cell's title.
  static func shortened(_ id: String) -> String {
    guard id.count > 40 else { return id }
    return "\(id.prefix(24))…\(id.suffix(8))"
  }
}
