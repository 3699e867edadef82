extension Certificate {
  /// Parses the first `-----BEGIN CERTIFICATE-----` block of `pem` (text around it is ignored,
  /// as in Google's `{kid: PEM}` key sets). No block, or a block that is not base64 DER, is
  /// `.malformedCertificate`.
  public init(pem: String) throws(CryptoError) {
    var body = ""
    var inside = false
    for line in pem.split(whereSeparator: \.isNewline) {
      let trimmed = line.trimmingWhitespace
      if trimmed == "-----BEGIN CERTIFICATE-----" {
        inside = true
      } else if trimmed == "-----END CERTIFICATE-----", inside {
        guard let der = Base64.decode(body, ignoringWhitespace: true), !der.isEmpty else { break }
        try self.init(der: der)
        return
      } else if inside {
        body += trimmed
      }
    }
    throw CryptoError(code: .malformedCertificate, message: "no PEM certificate block")
  }
}

extension Substring {
  fileprivate var trimmingWhitespace: Substring {
    var text = self
    while let first = text.first, first.isWhitespace { text.removeFirst() }
    while let last = text.last, last.isWhitespace { text.removeLast() }
    return text
  }
}
