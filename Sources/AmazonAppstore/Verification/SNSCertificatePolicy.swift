import Foundation

/// Which URLs an SNS message may point Tollgate at: its signing certificate (`SigningCertURL`) and,
/// for a subscription confirmation, the `SubscribeURL` to GET. Checked before anything is fetched.
///
/// Amazon SNS: `https://sns.<region>.amazonaws.com/…` (and `sns.<region>.amazonaws.com.cn` in the
/// China regions), the host pattern AWS's own message validators use
/// (`^sns\.[a-zA-Z0-9\-]{3,}\.amazonaws\.com(\.cn)?$`, aws-php-sns-message-validator); no user
/// info, no explicit port other than 443, no fragment; a certificate URL's path ends in `.pem` and
/// has no query. Plus configured trusted prefixes (the store simulator's
/// `http://127.0.0.1:PORT/sns/`), which a URL must start with exactly. Any URL whose path holds a
/// percent-escape, a backslash or a dot segment is refused before either check, so the prefix is
/// matched on a path that no server reads differently.
public struct SNSCertificatePolicy: Sendable, Hashable {
  /// Extra URL prefixes trusted as SNS, each `scheme://host[:port]/path/`.
  public var trustedURLPrefixes: [String]

  public init(trustedURLPrefixes: [String] = []) {
    self.trustedURLPrefixes = trustedURLPrefixes.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
  }

  /// Whether `url` may be fetched as an SNS signing certificate.
  public func allowsCertificateURL(_ url: String) -> Bool { allows(url, certificate: true) }

  /// Whether `url` may be fetched to confirm an SNS subscription.
  public func allowsSubscribeURL(_ url: String) -> Bool { allows(url, certificate: false) }

  private func allows(_ url: String, certificate: Bool) -> Bool {
    // Characters no SNS URL holds and that URL parsers disagree about.
    guard !url.isEmpty, !url.contains(where: { $0 == "\\" || $0 == "@" || $0.isWhitespace || $0 == "#" }),
      !url.contains(".."), Self.hasPlainPath(url)
    else { return false }
    for prefix in trustedURLPrefixes where Self.isUsablePrefix(prefix) && url.hasPrefix(prefix) {
      let rest = url.dropFirst(prefix.count)
      if certificate { return rest.hasSuffix(".pem") && !rest.contains("?") }
      return true
    }
    guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https",
      components.user == nil, components.password == nil, components.fragment == nil,
      components.port == nil || components.port == 443, let host = components.host?.lowercased(),
      Self.isSNSHost(host)
    else { return false }
    if certificate { return components.query == nil && components.path.hasSuffix(".pem") }
    return true
  }

  /// Whether the URL's path (up to its query) means what it says to every server and proxy, so
  /// that starting with a trusted prefix means lying under it (issue 25: `%2e%2e` passed the
  /// prefix check): no percent-escape at all (an encoded dot, slash or backslash is decoded by some
  /// servers before they resolve the path, and no SNS certificate or confirmation path holds one)
  /// and no `.` or `..` segment.
  static func hasPlainPath(_ url: String) -> Bool {
    let path = url.prefix { $0 != "?" }
    guard !path.contains("%") else { return false }
    let afterScheme = path.range(of: "://").map { path[$0.upperBound...] } ?? path
    let segments = afterScheme.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    return !segments.contains { $0 == "." || $0 == ".." }
  }

  /// `sns.<region>.amazonaws.com` or `sns.<region>.amazonaws.com.cn`, region of 3 or more
  /// letters, digits and hyphens.
  static func isSNSHost(_ host: String) -> Bool {
    var rest: Substring
    if host.hasSuffix(".amazonaws.com") {
      rest = host.dropLast(".amazonaws.com".count)
    } else if host.hasSuffix(".amazonaws.com.cn") {
      rest = host.dropLast(".amazonaws.com.cn".count)
    } else {
      return false
    }
    guard rest.hasPrefix("sns.") else { return false }
    rest = rest.dropFirst("sns.".count)
    return rest.count >= 3 && rest.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
  }

  /// A prefix must name its authority in full (`scheme://host[:port]/…`), so nothing appended to
  /// it can change the host.
  private static func isUsablePrefix(_ prefix: String) -> Bool {
    guard let schemeEnd = prefix.range(of: "://") else { return false }
    return prefix[schemeEnd.upperBound...].contains("/")
  }
}
