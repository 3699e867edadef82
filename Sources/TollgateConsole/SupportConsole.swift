import Foundation
import Hummingbird
import Logging
import TollgateCallers
import TollgateServer
import TollgateSupport

/// What the console reads and writes through.
public struct ConsoleBackend: Sendable {
  /// The admin calls every door answers: grants, revocations and re-verifications go through
  /// them exactly as the API's do (the note and the caller recorded, answered once this
  /// replica's index has the write). Nil: this replica serves no admin calls.
  public var admin: @Sendable () -> (any AdminHandler)?
  /// The support desk the pages read (search, the user page); nil while its storage cannot be
  /// opened (the pages then say so).
  public var desk: @Sendable () -> SupportDesk?

  public init(
    admin: @escaping @Sendable () -> (any AdminHandler)?, desk: @escaping @Sendable () -> SupportDesk?
  ) {
    self.admin = admin
    self.desk = desk
  }
}

/// The support console (issue 29): server-rendered pages under `/console` on serve's HTTP door.
/// An operator signs in with an admin caller key (a form body, never a URL), checked by the
/// door's `CallerGate` (a wrong key costs its source one failed authentication, the same budget
/// as every door's); a session in memory then carries them (`ConsoleSessions`), its cookie
/// HttpOnly, SameSite=Strict, Path=/console, Secure on a TLS door. Every POST must come from this
/// origin and carry the session's CSRF token. Pages: search (a user id or any store
/// identifier), a user's page (timelines, entitlements and why, events and webhook deliveries,
/// grant / revoke / re-verify), in the operator's time zone.
///
/// The door mounts it (`respond(to:connection:)`) outside its bearer-key check: the console
/// checks its own sessions.
public final class SupportConsole: Sendable {
  /// The path every console route lives under.
  public static let pathPrefix = "/console"

  public struct Config: Sendable {
    /// A session ends this long after its last request.
    public var idleTimeoutMs: Int64 = 30 * 60_000
    /// A session ends this long after sign-in, however busy.
    public var absoluteTimeoutMs: Int64 = 8 * 3_600_000
    /// Sessions held at most; the least recently used goes first.
    public var maximumSessions = 1_000

    public init() {}
  }

  let gate: CallerGate
  let backend: ConsoleBackend
  let sessions: ConsoleSessions
  /// Real time for the sessions' expiry (never the deployment's clock, which may follow a
  /// store simulator's jumps).
  let sessionNowMs: @Sendable () -> Int64
  let logger: Logger

  public init(
    config: Config = Config(), gate: CallerGate, backend: ConsoleBackend, logger: Logger,
    sessionNowMs: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) }
  ) {
    self.gate = gate
    self.backend = backend
    self.sessions = ConsoleSessions(
      limits: .init(
        idleMs: config.idleTimeoutMs, absoluteMs: config.absoluteTimeoutMs, maximumSessions: config.maximumSessions))
    self.sessionNowMs = sessionNowMs
    self.logger = logger
  }

  /// Answers one request under `/console`.
  public func respond(to request: Request, connection: ConsoleConnection) async -> Response {
    let path = request.uri.path
    switch (request.method, path) {
    case (.get, "/console/style.css"): return ConsoleStyle.response
    case (.get, "/console/sign-in"): return signInPage(request)
    case (.post, "/console/sign-in"): return await signIn(request, connection: connection)
    default: break
    }
    guard let signedIn = signedIn(request, takeFlash: request.method == .get) else {
      if request.method == .post {
        return refusedForm("You are not signed in (or your session ended): sign in again.")
      }
      var response = ConsoleHTTP.redirect("/console/sign-in")
      if request.cookies[ConsoleHTTP.sessionCookie] != nil {
        response.setCookie(ConsoleHTTP.clearedSessionCookie(secure: connection.isTLS))
      }
      return response
    }
    connection.proven()
    if request.method == .post {
      return await post(request, path: path, as: signedIn, connection: connection)
    }
    guard request.method == .get || request.method == .head else {
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "Not found", body: ConsoleLayout.message("Not here", "The console has no such page."), chrome: nil),
        status: .notFound)
    }
    switch path {
    case "/console", "/console/": return ConsoleHTTP.redirect("/console/search")
    case "/console/search": return await searchPage(request, as: signedIn)
    case "/console/user": return await userPage(request, as: signedIn)
    default:
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "Not found", body: ConsoleLayout.message("Not here", "The console has no such page."),
          chrome: chrome(signedIn, request: request)), status: .notFound)
    }
  }

  /// A signed-in operator on one request: the session, the caller as the gate knows it now,
  /// and the time zone they read dates in.
  struct SignedIn: Sendable {
    var session: ConsoleSession
    var identity: CallerIdentity
  }

  /// The operator behind the request's session cookie, if the session is live and its caller is
  /// still configured with the same key and the admin scope; a session whose caller is gone ends.
  func signedIn(_ request: Request, takeFlash: Bool = false) -> SignedIn? {
    guard let id = request.cookies[ConsoleHTTP.sessionCookie]?.value, !id.isEmpty,
      let session = sessions.use(id, nowMs: sessionNowMs(), takeFlash: takeFlash)
    else { return nil }
    guard case .callers(let registry) = gate.access,
      let caller = registry.current(name: session.callerName, keySha256: session.keySha256),
      caller.scopes.contains(.admin)
    else {
      sessions.end(id)
      logger.notice("console session ended: its caller is gone or lost the admin scope")
      return nil
    }
    return SignedIn(session: session, identity: CallerIdentity(name: caller.name, scopes: caller.scopes))
  }

  /// The operator's time zone: the `tollgate_tz` cookie's IANA name, UTC without one.
  static func timeZone(_ request: Request) -> TimeZone {
    guard let name = request.cookies[ConsoleHTTP.timeZoneCookie]?.value.removingPercentEncoding,
      let zone = TimeZone(identifier: name)
    else { return TimeZone(identifier: "UTC")! }
    return zone
  }

  /// The header every signed-in page shows: who is signed in, the search box, the time zone
  /// select and sign-out, their forms carrying the session's CSRF token.
  func chrome(_ signedIn: SignedIn, request: Request, query: String = "") -> ConsoleLayout.Chrome {
    ConsoleLayout.Chrome(
      callerName: signedIn.identity.name ?? "", requestedBy: signedIn.session.requestedBy,
      csrfToken: signedIn.session.csrfToken, timeZone: Self.timeZone(request), query: query,
      returnTo: Self.returnPath(request))
  }

  /// Where a form on this page returns to: the request's own path and query (a console path).
  static func returnPath(_ request: Request) -> String {
    let path = request.uri.path
    guard path.hasPrefix(pathPrefix) else { return "/console/search" }
    return request.uri.query.map { "\(path)?\($0)" } ?? path
  }

  /// 403 for a form that cannot be trusted (no session, another origin, a missing or wrong
  /// CSRF token): nothing was done.
  /// Its body may be unread: the connection closes after it.
  func refusedForm(_ reason: String) -> Response {
    logger.notice("console form refused", metadata: ["reason": "\(reason)"])
    var response = ConsoleHTTP.page(
      ConsoleLayout.page(
        title: "Refused",
        body: ConsoleLayout.message("Nothing was done", reason, link: ("/console/search", "Back to the console")),
        chrome: nil), status: .forbidden)
    response.headers[.connection] = "close"
    return response
  }
}
