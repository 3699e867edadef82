import Foundation
import Hummingbird
import NIOCore
import TollgateCallers

/// What the door tells the console about a request's connection.
public struct ConsoleConnection: Sendable {
  /// The peer, as the caller gate counts failed keys (one budget for every door).
  public var source: PeerSource
  /// Whether the door speaks TLS: the session cookie is then `Secure`.
  public var isTLS: Bool
  /// Tells the door's connection guard the connection has proven a caller (a live session), so
  /// its unproven-connection deadline no longer applies.
  public var proven: @Sendable () -> Void

  public init(source: PeerSource, isTLS: Bool, proven: @escaping @Sendable () -> Void = {}) {
    self.source = source
    self.isTLS = isTLS
    self.proven = proven
  }
}

/// The console's HTTP details: its cookies, form bodies, the same-origin rule and the headers
/// every page carries.
enum ConsoleHTTP {
  static let sessionCookie = "tollgate_session"
  static let timeZoneCookie = "tollgate_tz"
  /// The most a console form's body may hold.
  static let maximumFormBytes = 16 << 10

  /// The session cookie: HttpOnly, SameSite=Strict, Path=/console, Secure on a TLS door; no
  /// expiry (the server ends the session; the browser forgets the cookie when it closes).
  static func sessionCookie(_ value: String, secure: Bool) -> Cookie {
    Cookie(
      name: sessionCookie, value: value, path: SupportConsole.pathPrefix, secure: secure, httpOnly: true,
      sameSite: .strict)
  }

  /// The session cookie, expired: what sign-out and a dead session send.
  static func clearedSessionCookie(secure: Bool) -> Cookie {
    Cookie(
      name: sessionCookie, value: "", maxAge: 0, path: SupportConsole.pathPrefix, secure: secure, httpOnly: true,
      sameSite: .strict)
  }

  /// Whether a POST came from a page of this origin: its `Origin` (or, without one, its
  /// `Referer`) names the host and port the request was sent to. A request naming neither, or
  /// `Origin: null`, is refused. Only the authority is compared, not the scheme, so a console
  /// behind a TLS-terminating proxy that keeps the Host header still works.
  static func isSameOrigin(_ request: Request) -> Bool {
    // HTTP/1.1's Host header arrives as the request's authority.
    guard let authority = (request.head.authority ?? request.headers[hostField])?.lowercased(), !authority.isEmpty
    else { return false }
    guard let claimed = request.headers[.origin] ?? request.headers[.referer], claimed != "null",
      let url = URL(string: claimed), let host = url.host?.lowercased(), !host.isEmpty
    else { return false }
    let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
    let candidates =
      url.port.map { port in port == defaultPort ? ["\(bracketed):\(port)", bracketed] : ["\(bracketed):\(port)"] }
      ?? [bracketed, "\(bracketed):\(defaultPort)"]
    return candidates.contains(authority)
  }

  static let hostField = HTTPFields.Element.Name("Host")!

  /// The fields of an `application/x-www-form-urlencoded` body (the last of a repeated name
  /// wins); nil when the body is of another type, too long, or not UTF-8.
  static func form(_ request: Request) async -> [String: String]? {
    let type = request.headers[.contentType]?.lowercased() ?? ""
    guard type.hasPrefix("application/x-www-form-urlencoded") else { return nil }
    guard let body = try? await request.body.collect(upTo: maximumFormBytes) else { return nil }
    return fields(String(buffer: body))
  }

  /// `a=1&b=two+words` as fields, `+` as a space and percent escapes decoded.
  static func fields(_ text: String) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = decode(parts[0]) else { continue }
      fields[name] = parts.count > 1 ? decode(parts[1]) ?? "" : ""
    }
    return fields
  }

  static func decode(_ part: Substring) -> String? {
    part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
  }

  /// `text` as a query value or a form field (every byte but the unreserved ones escaped).
  static func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// A page: HTML, never cached, with the console's security headers.
  static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
    var headers = securityHeaders
    headers[.contentType] = "text/html; charset=utf-8"
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
  }

  /// 303 See Other to `location` (a path of the console), after a form or to the sign-in page.
  static func redirect(_ location: String) -> Response {
    var headers = securityHeaders
    headers[.location] = location
    return Response(status: .seeOther, headers: headers)
  }

  /// What every console response carries: no caching (pages show customers' data), no framing,
  /// no content sniffing, no referrer beyond this origin, and a content security policy that
  /// allows no script at all, styles only from the console's stylesheet, and forms only back to
  /// the console.
  static let securityHeaders: HTTPFields = [
    .cacheControl: "no-store",
    .contentSecurityPolicy:
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    .xContentTypeOptions: "nosniff",
    .init("X-Frame-Options")!: "DENY",
    .init("Referrer-Policy")!: "same-origin",
  ]
}
