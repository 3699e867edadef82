import Foundation

/// The console's page frame and its small shared pieces, as HTML strings. Every text that is not
/// one of this module's literals goes through `HTML.escape`; attribute values are always
/// double-quoted.
enum ConsoleLayout {
  /// What the header of a signed-in page needs.
  struct Chrome: Sendable {
    var callerName: String
    var requestedBy: String?
    var csrfToken: String
    var timeZone: TimeZone
    /// The search box's text.
    var query: String
    /// Where the time zone form returns to.
    var returnTo: String
  }

  /// A whole page: the frame, the header when signed in (`chrome`), then `body`.
  static func page(title: String, body: String, chrome: Chrome?) -> String {
    var html = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="referrer" content="same-origin">
      <title>\(HTML.escape(title)) · Tollgate console</title>
      <link rel="stylesheet" href="/console/style.css">
      </head>
      <body>
      <header class="top">
      <a class="brand" href="/console/search">Tollgate support console</a>

      """
    if let chrome { html += header(chrome) }
    html += "</header>\n<main>\n" + body + "\n</main>\n</body>\n</html>\n"
    return html
  }

  /// The signed-in header: search, time zone, who, sign out.
  static func header(_ chrome: Chrome) -> String {
    let who = chrome.requestedBy.map { "\(HTML.escape($0)) as " } ?? ""
    return """
      <form class="search" method="get" action="/console/search" role="search">
      <label for="q">User id or store identifier</label>
      <input id="q" name="q" type="search" value="\(HTML.escape(chrome.query))" size="40" required>
      <button type="submit">Search</button>
      </form>
      <form class="zone" method="post" action="/console/time-zone">
      \(csrfField(chrome.csrfToken))
      <input type="hidden" name="return" value="\(HTML.escape(chrome.returnTo))">
      <label for="tz">Time zone</label>
      \(timeZoneSelect(selected: chrome.timeZone))
      <button type="submit">Use</button>
      </form>
      <form class="who" method="post" action="/console/sign-out">
      \(csrfField(chrome.csrfToken))
      <span>Signed in: \(who)<b id="caller">\(HTML.escape(chrome.callerName))</b></span>
      <button type="submit">Sign out</button>
      </form>

      """
  }

  /// The hidden field every form of a session carries.
  static func csrfField(_ token: String) -> String {
    "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(token))\">"
  }

  /// Every IANA time zone Foundation knows, the selected one marked.
  static func timeZoneSelect(selected: TimeZone) -> String {
    var html = "<select id=\"tz\" name=\"tz\">"
    // Foundation names UTC "GMT" on Linux: the select shows it as UTC, its first option.
    let current = selected.identifier == "GMT" ? "UTC" : selected.identifier
    for name in zoneNames {
      let mark = name == current ? " selected" : ""
      html += "<option\(mark)>\(HTML.escape(name))</option>"
    }
    return html + "</select>"
  }

  /// UTC first, then the rest in order.
  static let zoneNames: [String] = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.filter { $0 != "UTC" }.sorted()

  /// A short section: a heading, a sentence, and a link after it.
  static func message(_ title: String, _ text: String, link: (href: String, label: String)? = nil) -> String {
    var html = "<section class=\"message\"><h1>\(HTML.escape(title))</h1><p>\(HTML.escape(text))"
    if let link { html += " <a href=\"\(HTML.escape(link.href))\">\(HTML.escape(link.label))</a>" }
    return html + "</p></section>"
  }

  /// The one-time message of the last form (`ConsoleFlash`), or nothing.
  static func flash(_ flash: ConsoleFlash?) -> String {
    guard let flash else { return "" }
    return
      "<p class=\"flash flash-\(flash.kind.rawValue)\" role=\"status\" id=\"flash\">\(HTML.escape(flash.text))</p>\n"
  }

  /// The sign-in page: an admin caller key (a password field: never in a URL, never
  /// autocompleted), and optionally who the operator is, recorded with their changes.
  static func signIn(problem: String?) -> String {
    let shown =
      problem.map { "<p class=\"flash flash-problem\" role=\"alert\" id=\"flash\">\(HTML.escape($0))</p>\n" } ?? ""
    return page(
      title: "Sign in",
      body: """
        <section class="sign-in">
        <h1>Sign in</h1>
        \(shown)<form method="post" action="/console/sign-in" autocomplete="off">
        <p><label for="key">Admin caller key</label>
        <input id="key" name="key" type="password" autocomplete="off" required size="56"></p>
        <p><label for="operator">Your name (optional; recorded with your changes)</label>
        <input id="operator" name="operator" type="text" maxlength="100" size="30"></p>
        <p><button type="submit">Sign in</button></p>
        </form>
        <p class="hint">A key of a caller with the <code>admin</code> scope (<code>tollgate callers new NAME --scopes admin</code>). \
        Failed keys count against this address's failed-authentication budget, as on every door.</p>
        </section>
        """, chrome: nil)
  }
}
