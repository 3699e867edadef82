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

  /// Decodes the base64 text `utf8`, or returns `nil` if it is not base64.
  public static func decode(utf8: UnsafeBufferPointer<UInt8>, ignoringWhitespace: Bool = false) -> [UInt8]? {
    Base64Codec.decode(utf8, urlSafe: false, ignoringWhitespace: ignoringWhitespace)
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

  /// Decodes the base64url text `utf8` (padding optional), or returns `nil` if it is not base64url.
  public static func decode(utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    Base64Codec.decode(utf8, urlSafe: true, ignoringWhitespace: false)
  }
}

enum Base64Codec {
  static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8], pad: Bool) -> String {
    if let encoded = bytes.withContiguousStorageIfAvailable({ encode($0, alphabet: alphabet, pad: pad) }) {
      return encoded
    }
    return Array(bytes).withUnsafeBufferPointer { encode($0, alphabet: alphabet, pad: pad) }
  }

  /// Three bytes become four characters, written in place into the string's own storage.
  static func encode(_ bytes: UnsafeBufferPointer<UInt8>, alphabet: [UInt8], pad: Bool) -> String {
    let rest = bytes.count % 3
    let length = bytes.count / 3 * 4 + (rest == 0 ? 0 : pad ? 4 : rest + 1)
    return String(unsafeUninitializedCapacity: length) { out in
      alphabet.withUnsafeBufferPointer { alphabet in
        func character(_ group: UInt32, _ shift: UInt32) -> UInt8 { alphabet[Int(group >> shift & 63)] }
        var from = 0
        var to = 0
        while from + 3 <= bytes.count {
          let group = UInt32(bytes[from]) << 16 | UInt32(bytes[from + 1]) << 8 | UInt32(bytes[from + 2])
          out[to] = character(group, 18)
          out[to + 1] = character(group, 12)
          out[to + 2] = character(group, 6)
          out[to + 3] = character(group, 0)
          from += 3
          to += 4
        }
        guard rest > 0 else { return }
        let group = UInt32(bytes[from]) << 16 | (rest == 2 ? UInt32(bytes[from + 1]) << 8 : 0)
        out[to] = character(group, 18)
        out[to + 1] = character(group, 12)
        to += 2
        if rest == 2 {
          out[to] = character(group, 6)
          to += 1
        } else if pad {
          out[to] = UInt8(ascii: "=")
          to += 1
        }
        if pad { out[to] = UInt8(ascii: "=") }
      }
      return length
    }
  }

  /// Each byte's value in the alphabet (0–63); `invalid` for a byte outside it.
  private static let invalid: UInt8 = 0xFF
  private static let standardValues = values(of: standard)
  private static let urlValues = values(of: url)

  private static func values(of alphabet: [UInt8]) -> [UInt8] {
    var values = [UInt8](repeating: invalid, count: 256)
    for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
    return values
  }

  static func decode(_ string: some StringProtocol, urlSafe: Bool, ignoringWhitespace: Bool) -> [UInt8]? {
    if let decoded = string.utf8.withContiguousStorageIfAvailable({
      decode($0, urlSafe: urlSafe, ignoringWhitespace: ignoringWhitespace)
    }) {
      return decoded
    }
    return Array(string.utf8).withUnsafeBufferPointer {
      decode($0, urlSafe: urlSafe, ignoringWhitespace: ignoringWhitespace)
    }
  }

  /// One pass over the text: four characters become three bytes, written in place. Strict as
  /// RFC 4648 reads: only the alphabet, `=` only at the end (at most two, and only where a group
  /// is short), no lone character in the last group, and no set bits past the last byte.
  static func decode(_ text: UnsafeBufferPointer<UInt8>, urlSafe: Bool, ignoringWhitespace: Bool) -> [UInt8]? {
    let table = urlSafe ? urlValues : standardValues
    var failed = false
    let decoded = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 3) { out, written in
      var group: UInt32 = 0
      var inGroup = 0
      var padding = 0
      var count = 0
      table.withUnsafeBufferPointer { table in
        for c in text {
          if ignoringWhitespace, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
          if c == UInt8(ascii: "=") {
            padding += 1
            continue
          }
          let value = table[Int(c)]
          guard padding == 0, value != invalid else {
            failed = true
            return
          }
          group = group << 6 | UInt32(value)
          inGroup += 1
          if inGroup == 4 {
            out[count] = UInt8(truncatingIfNeeded: group >> 16)
            out[count + 1] = UInt8(truncatingIfNeeded: group >> 8)
            out[count + 2] = UInt8(truncatingIfNeeded: group)
            count += 3
            group = 0
            inGroup = 0
          }
        }
      }
      guard !failed, inGroup != 1, padding == 0 || (inGroup + padding) % 4 == 0, padding <= 2 else {
        failed = true
        written = count
        return
      }
      if inGroup == 2 {
        // 12 bits: one byte and four that must be zero.
        if group & 0xF != 0 { failed = true }
        out[count] = UInt8(truncatingIfNeeded: group >> 4)
        count += 1
      } else if inGroup == 3 {
        // 18 bits: two bytes and two that must be zero.
        if group & 0x3 != 0 { failed = true }
        out[count] = UInt8(truncatingIfNeeded: group >> 10)
        out[count + 1] = UInt8(truncatingIfNeeded: group >> 2)
        count += 2
      }
      written = count
    }
    return failed ? nil : decoded
  }
}
