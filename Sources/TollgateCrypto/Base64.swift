/// Standard base64 (RFC 4648 §4), strict: only the alphabet, optional `=` padding, and (when
/// asked) whitespace, which legacy receipts carry.
public enum Base64 {
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    Base64Codec.encode(bytes, alphabet: Base64Codec.standard, pad: true)
  }

  /// Decodes `string`, or returns `nil` if it is not base64.
  public static func decode(_ string: some StringProtocol, ignoringWhitespace: Bool = false) -> [UInt8]? {
    Base64Codec.decode(string, urlSafe: false, ignoringWhitespace: ignoringWhitespace)
  }
}

/// Base64url without padding (RFC 4648 §5), as used by JWS.
public enum Base64URL {
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    Base64Codec.encode(bytes, alphabet: Base64Codec.url, pad: false)
  }

  /// Decodes `string` (padding optional), or returns `nil` if it is not base64url.
  public static func decode(_ string: some StringProtocol) -> [UInt8]? {
    Base64Codec.decode(string, urlSafe: true, ignoringWhitespace: false)
  }
}

enum Base64Codec {
  static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8], pad: Bool) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var iterator = bytes.makeIterator()
    while let b0 = iterator.next() {
      let b1 = iterator.next()
      let b2 = b1 == nil ? nil : iterator.next()
      let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      if b1 != nil { out.append(alphabet[Int(n >> 6 & 63)]) } else if pad { out.append(UInt8(ascii: "=")) }
      if b2 != nil { out.append(alphabet[Int(n & 63)]) } else if pad { out.append(UInt8(ascii: "=")) }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func value(_ c: UInt8, urlSafe: Bool) -> UInt8? {
    switch c {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
    case UInt8(ascii: "+") where !urlSafe, UInt8(ascii: "-") where urlSafe: return 62
    case UInt8(ascii: "/") where !urlSafe, UInt8(ascii: "_") where urlSafe: return 63
    default: return nil
    }
  }

  static func decode(_ string: some StringProtocol, urlSafe: Bool, ignoringWhitespace: Bool) -> [UInt8]? {
    var values: [UInt8] = []
    values.reserveCapacity(string.utf8.count)
    var padding = 0
    for c in string.utf8 {
      if ignoringWhitespace, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
      if c == UInt8(ascii: "=") {
        padding += 1
        continue
      }
      guard padding == 0, let v = value(c, urlSafe: urlSafe) else { return nil }
      values.append(v)
    }
    let remainder = values.count % 4
    guard remainder != 1, padding == 0 || (values.count + padding) % 4 == 0, padding <= 2 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(values.count * 3 / 4)
    var index = 0
    while index + 4 <= values.count {
      let n =
        UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
        | UInt32(values[index + 3])
      out += [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
      index += 4
    }
    if remainder == 2 {
      let n = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
      guard n & 0xFFFF == 0 else { return nil }  // non-canonical trailing bits
      out.append(UInt8(n >> 16 & 0xFF))
    } else if remainder == 3 {
      let n = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
      guard n & 0xFF == 0 else { return nil }
      out += [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF)]
    }
    return out
  }
}
