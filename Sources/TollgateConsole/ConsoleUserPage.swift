import Foundation
import TollgateSupport

/// A user's page: the user page's sections and the timeline drawing (`UserPageSections`,
/// `TimelineSVG`), with the console's forms between them.
enum ConsoleUserPage {
  struct Forms: Sendable {
    var userId: String
    var csrfToken: String
    /// False on a server without admin calls: no forms, a sentence instead.
    var adminOn: Bool
  }

  static func render(_ overview: UserOverview, forms: Forms, timeZone: TimeZone) -> String {
    var html = "<h1>User <code id=\"user-id\">\(HTML.escape(overview.userId))</code></h1>\n"
    html += UserPageSections.entitlements(overview, timeZone: timeZone)
    html += "<section class=\"subscriptions\" aria-labelledby=\"subscriptions-heading\">"
    html += "<h2 id=\"subscriptions-heading\">Subscriptions and grants over time</h2>"
    if let timeline = overview.timeline {
      html += TimelineSVG.render(timeline, timeZone: timeZone)
    } else {
      html += "<p>Tollgate holds no purchase, event or grant of this user; only entitlement records.</p>"
    }
    html += "</section>\n"
    html += actions(forms, entitlements: overview.entitlements.map(\.entitlement))
    html += UserPageSections.events(overview, timeZone: timeZone)
    html += UserPageSections.deliveries(overview, timeZone: timeZone)
    return html
  }

  /// A user Tollgate holds nothing of: say so, and still offer a grant (a new customer's
  /// promotional access).
  static func unknown(_ userId: String, forms: Forms) -> String {
    var html = "<h1>User <code id=\"user-id\">\(HTML.escape(userId))</code></h1>\n"
    html += "<p id=\"unknown-user\">Tollgate holds nothing of this user: no purchase, event or grant.</p>\n"
    return html + actions(forms, entitlements: [])
  }

  /// Grant, revoke, re-verify: each a POST with the session's CSRF token and the user's id.
  static func actions(_ forms: Forms, entitlements: [String]) -> String {
    guard forms.adminOn else {
      return "<section class=\"actions\"><h2>Change</h2><p>This server serves no admin calls.</p></section>\n"
    }
    let hidden =
      ConsoleLayout.csrfField(forms.csrfToken)
      + "<input type=\"hidden\" name=\"user\" value=\"\(HTML.escape(forms.userId))\">"
    let choice = entitlementField(entitlements)
    let note =
      "<label>Note <input name=\"note\" type=\"text\" maxlength=\"1000\" size=\"40\" "
      + "placeholder=\"why (kept with the change)\"></label>"
    return """
      <section class="actions" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Change</h2>
      <form id="grant" method="post" action="/console/user/grant">
      <h3>Grant</h3>
      \(hidden)
      \(choice)
      <label>For <input name="days" type="number" min="1" max="\(SupportConsole.maximumGrantDays)" value="30" required> days</label>
      \(note)
      <button type="submit">Grant</button>
      </form>
      <form id="revoke" method="post" action="/console/user/revoke">
      <h3>Revoke grants</h3>
      \(hidden)
      \(choice)
      \(note)
      <button type="submit">Revoke</button>
      </form>
      <form id="reverify" method="post" action="/console/user/reverify">
      <h3>Re-verify</h3>
      \(hidden)
      <p>Asks the worker to read every store subscription of this user from its store again.</p>
      <button type="submit">Re-verify</button>
      </form>
      </section>

      """
  }

  /// A select of the entitlements the catalog names, or a text field when none is known.
  static func entitlementField(_ names: [String]) -> String {
    guard !names.isEmpty else {
      return "<label>Entitlement <input name=\"entitlement\" type=\"text\" required size=\"16\"></label>"
    }
    var html = "<label>Entitlement <select name=\"entitlement\">"
    for name in names { html += "<option>\(HTML.escape(name))</option>" }
    return html + "</select></label>"
  }
}
