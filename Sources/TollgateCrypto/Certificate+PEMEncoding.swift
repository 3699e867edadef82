extension Certificate {
  /// The certificate as one PEM block (`-----BEGIN CERTIFICATE-----`, base64 in 64-character lines,
  /// a final newline): what an SNS `SigningCertURL` serves.
  public var pemRepresentation: String {
    let base64 = Base64.encode(der)
    var lines: [Substring] = []
    var rest = Substring(base64)
    while !rest.isEmpty {
      lines.append(rest.prefix(64))
      rest = rest.dropFirst(64)
    }
    return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
  }
}
