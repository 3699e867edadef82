import Hummingbird
import Logging
import TollgateCallers

extension SupportConsole {
  /// The longest name an operator may give at sign-in (recorded as `requested_by`).
  static let maximumOperatorNameBytes = 100

  /// GET /console/sign-in: the form, or straight to search for a live session.
  func signInPage(_ request: Request) -> Response {
    if signedIn(request) != nil { return ConsoleHTTP.redirect("/console/search") }
    return ConsoleHTTP.page(ConsoleLayout.signIn(problem: nil))
  }

  /// POST /console/sign-in: the key in the form body, checked by the door's `CallerGate` (a wrong
  /// key costs this source one failed authentication; a source out of them is refused before
  /// its key is looked at). Only a caller with the `admin` scope gets a session. The key is
  /// never logged, never echoed, and never put in a URL: a refusal shows the form again, empty.
  func signIn(_ request: Request, connection: ConsoleConnection) async -> Response {
    guard ConsoleHTTP.isSameOrigin(request) else {
      return refusedForm("The sign-in form came from another site (its Origin is not this console's).")
    }
    guard let form = await ConsoleHTTP.form(request) else {
      return signInRefused("The sign-in form could not be read: send it from the sign-in page.", .badRequest)
    }
    let key = (form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    guard !key.isEmpty else { return signInRefused("Enter an admin caller key.", .badRequest) }
    guard case .callers = gate.access else {
      return signInRefused(
        "This server has no callers, so nobody can sign in: configure a caller with the admin scope "
          + "(tollgate callers new support --scopes admin) in service.callers or service.callersFile.", .forbidden)
    }
    let refusal: CallerRefusal
    switch gate.identify(authorization: "Bearer " + key, source: connection.source) {
    case .success(let identity):
      guard let name = identity.name, identity.scopes.contains(.admin) else {
        logger.notice(
          "console sign-in refused: the caller has no admin scope",
          metadata: ["caller": "\(identity.name ?? "")", "source": "\(connection.source)"])
        return signInRefused(
          "This key's caller (\(identity.name ?? "")) has no admin scope: the console needs an admin caller.",
          .forbidden)
      }
      let requestedBy = Self.operatorName(form["operator"])
      let session = sessions.create(
        callerName: name, keySha256: CallerKey.digest(of: key), requestedBy: requestedBy, nowMs: sessionNowMs())
      connection.proven()
      logger.notice("console sign-in", metadata: ["caller": "\(name)", "source": "\(connection.source)"])
      var response = ConsoleHTTP.redirect("/console/search")
      response.setCookie(ConsoleHTTP.sessionCookie(session.id, secure: connection.isTLS))
      return response
    case .failure(let failure):
      refusal = failure
    }
    logger.notice(
      "console sign-in refused", metadata: ["source": "\(connection.source)", "reason": "\(refusal.message)"])
    switch refusal.kind {
    case .sourceBlocked(let seconds):
      var response = signInRefused(
        "Too many failed keys from this address: try again in \(seconds) s.", .tooManyRequests)
      response.headers[.retryAfter] = "\(seconds)"
      return response
    case .permissionDenied, .unauthenticated:
      return signInRefused("That key is not a caller's key.", .unauthorized)
    }
  }

  /// POST /console/sign-out (its CSRF token already checked): ends the session, expires the cookie.
  func signOut(_ signedIn: SignedIn, connection: ConsoleConnection) -> Response {
    sessions.end(signedIn.session.id)
    logger.notice("console sign-out", metadata: ["caller": "\(signedIn.identity.name ?? "")"])
    var response = ConsoleHTTP.page(
      ConsoleLayout.page(
        title: "Signed out",
        body: ConsoleLayout.message(
          "Signed out", "Your session has ended.", link: ("/console/sign-in", "Sign in again")),
        chrome: nil))
    response.setCookie(ConsoleHTTP.clearedSessionCookie(secure: connection.isTLS))
    return response
  }

  func signInRefused(_ problem: String, _ status: HTTPResponse.Status) -> Response {
    ConsoleHTTP.page(ConsoleLayout.signIn(problem: problem), status: status)
  }

  /// The operator's name as given, trimmed, without control characters; nil when blank; cut to
  /// `maximumOperatorNameBytes`.
  static func operatorName(_ text: String?) -> String? {
    let cleaned = String(
      String.UnicodeScalarView(
        (text ?? "").unicodeScalars.filter { $0.properties.generalCategory != .control })
    )
    .trimmingCharacters(in: .whitespaces)
    guard !cleaned.isEmpty else { return nil }
    var cut = ""
    for character in cleaned {
      guard cut.utf8.count + String(character).utf8.count <= maximumOperatorNameBytes else { break }
      cut.append(character)
    }
    return cut
  }
}
