import Foundation
import Hummingbird
import TollgateContract
import TollgateServer
import TollgateSupport

/// The console's forms: each POST must come from this origin (`ConsoleHTTP.isSameOrigin`) and
/// carry the session's CSRF token, or nothing is done (403). Writes go through the admin calls
/// every door answers (`ConsoleBackend.admin`), as the signed-in caller, with the operator's
/// note; then the browser is sent back to the page (303) where a one-time message says what
/// happened.
extension SupportConsole {
  /// The longest grant a form asks for, in days.
  static let maximumGrantDays = 3_650

  func post(_ request: Request, path: String, as signedIn: SignedIn, connection: ConsoleConnection) async
    -> Response
  {
    guard ConsoleHTTP.isSameOrigin(request) else {
      return refusedForm("This form came from another site (its Origin is not this console's).")
    }
    guard let form = await ConsoleHTTP.form(request) else {
      return refusedForm("This form could not be read (not a form, or too long).")
    }
    guard let token = form["csrf"], signedIn.session.accepts(csrfToken: token) else {
      return refusedForm("This form's token is missing or not this session's: reload the page and try again.")
    }
    switch path {
    case "/console/sign-out": return signOut(signedIn, connection: connection)
    case "/console/time-zone": return setTimeZone(form, connection: connection)
    case "/console/user/grant": return await grant(form, as: signedIn, zone: Self.timeZone(request))
    case "/console/user/revoke": return await revoke(form, as: signedIn)
    case "/console/user/reverify": return await reverify(form, as: signedIn)
    default:
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "Not found", body: ConsoleLayout.message("Not here", "The console has no such form."), chrome: nil),
        status: .notFound)
    }
  }

  /// Grants an entitlement for some days, with a note.
  func grant(_ form: [String: String], as signedIn: SignedIn, zone: TimeZone) async -> Response {
    let userId = form["user"] ?? ""
    guard let admin = backend.admin() else { return back(to: userId, signedIn, Self.adminOff) }
    guard let days = Int(form["days"] ?? ""), (1...Self.maximumGrantDays).contains(days) else {
      return back(to: userId, signedIn, .init(kind: .problem, text: "Days must be 1 to \(Self.maximumGrantDays)."))
    }
    let nowMs = backend.desk()?.nowMs() ?? Int64(Date().timeIntervalSince1970 * 1_000)
    let untilMs = nowMs + Int64(days) * 86_400_000
    let entitlement = form["entitlement"] ?? ""
    var request = Tollgate_V1_GrantRequest()
    request.userID = userId
    request.entitlement = entitlement
    request.until = ISO8601Text.text(ms: untilMs)
    request.note = form["note"] ?? ""
    request.requestedBy = signedIn.session.requestedBy ?? ""
    let response = await admin.grant(request, caller: signedIn.identity)
    if response.hasError {
      return back(to: userId, signedIn, .init(kind: .problem, text: "Not granted: \(response.error.message)"))
    }
    return back(
      to: userId, signedIn,
      .init(
        kind: .done,
        text:
          "Granted \(entitlement) until \(ConsoleDate.text(ms: untilMs, timeZone: zone)) (grant \(response.grantID))."))
  }

  /// Ends the user's open grants of an entitlement, with a note.
  func revoke(_ form: [String: String], as signedIn: SignedIn) async -> Response {
    let userId = form["user"] ?? ""
    guard let admin = backend.admin() else { return back(to: userId, signedIn, Self.adminOff) }
    let entitlement = form["entitlement"] ?? ""
    var request = Tollgate_V1_RevokeRequest()
    request.userID = userId
    request.entitlement = entitlement
    request.note = form["note"] ?? ""
    request.requestedBy = signedIn.session.requestedBy ?? ""
    let response = await admin.revoke(request, caller: signedIn.identity)
    if response.hasError {
      return back(to: userId, signedIn, .init(kind: .problem, text: "Not revoked: \(response.error.message)"))
    }
    let grants = response.revoked == 1 ? "1 grant" : "\(response.revoked) grants"
    return back(to: userId, signedIn, .init(kind: .done, text: "Revoked \(entitlement): \(grants) ended."))
  }

  /// Asks the worker to verify the user's store subscriptions again.
  func reverify(_ form: [String: String], as signedIn: SignedIn) async -> Response {
    let userId = form["user"] ?? ""
    guard let admin = backend.admin() else { return back(to: userId, signedIn, Self.adminOff) }
    var request = Tollgate_V1_ReverifyRequest()
    request.userID = userId
    let response = await admin.reverify(request, caller: signedIn.identity)
    if response.hasError {
      return back(to: userId, signedIn, .init(kind: .problem, text: "Not re-verified: \(response.error.message)"))
    }
    let count = response.subscriptions == 1 ? "1 subscription" : "\(response.subscriptions) subscriptions"
    return back(
      to: userId, signedIn,
      .init(kind: .done, text: "Re-verification asked: the worker reads \(count) from the stores again."))
  }

  /// Keeps the operator's time zone in a cookie (a year; only the console reads it).
  func setTimeZone(_ form: [String: String], connection: ConsoleConnection) -> Response {
    let target = Self.safeReturn(form["return"])
    guard let name = form["tz"], ConsoleLayout.zoneNames.contains(name), TimeZone(identifier: name) != nil else {
      return ConsoleHTTP.redirect(target)
    }
    var response = ConsoleHTTP.redirect(target)
    response.setCookie(
      Cookie(
        name: ConsoleHTTP.timeZoneCookie, value: name, maxAge: 365 * 86_400, path: Self.pathPrefix,
        secure: connection.isTLS, httpOnly: true, sameSite: .strict))
    return response
  }

  /// Back to the user's page with `flash` shown once.
  func back(to userId: String, _ signedIn: SignedIn, _ flash: ConsoleFlash) -> Response {
    sessions.setFlash(flash, for: signedIn.session.id)
    return ConsoleHTTP.redirect(Self.userPath(userId))
  }

  /// The user page's path: the id as a query value.
  static func userPath(_ userId: String) -> String { "/console/user?id=" + ConsoleHTTP.encode(userId) }

  /// A return path a form may send the browser to: a console path, never another site's
  /// (`//host`, a scheme, a backslash); the search page otherwise.
  static func safeReturn(_ path: String?) -> String {
    guard let path, path.hasPrefix(pathPrefix + "/") || path == pathPrefix,
      !path.contains("//"), !path.contains("\\"), !path.unicodeScalars.contains(where: { $0.value < 0x21 })
    else { return "/console/search" }
    return path
  }

  static let adminOff = ConsoleFlash(
    kind: .problem, text: "This server serves no admin calls (serve --no-admin): nothing can be changed here.")
}
