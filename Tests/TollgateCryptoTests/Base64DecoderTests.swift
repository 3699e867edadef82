import Testing
import TollgateCrypto

/// The one-pass base64 decoder against a plain model of RFC 4648's rules (the decoder it
/// replaced), over random texts: valid ones, and ones with a character changed, added or dropped.
@Suite("Base64: the one-pass encoder and decoder against plain models of RFC 4648")
struct Base64DecoderTests {
  /// The model: every character's value first, then the rules, then the bytes.
  static func model(_ text: [UInt8], urlSafe: Bool, ignoringWhitespace: Bool) -> [UInt8]? {
    let alphabet = Array(
      ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + (urlSafe ? "-_" : "+/")).utf8)
    var values: [UInt32] = []
    var padding = 0
    for c in text {
      if ignoringWhitespace, [0x20, 0x0A, 0x0D, 0x09].contains(c) { continue }
      if c == UInt8(ascii: "=") {
        padding += 1
        continue
      }
      guard padding == 0, let value = alphabet.firstIndex(of: c) else { return nil }
      values.append(UInt32(value))
    }
    let remainder = values.count % 4
    guard remainder != 1, padding == 0 || (values.count + padding) % 4 == 0, padding <= 2 else { return nil }
    var bits: [UInt8] = []
    for value in values { for shift in (0..<6).reversed() { bits.append(UInt8(value >> UInt32(shift) & 1)) } }
    let whole = bits.count / 8
    guard bits[(whole * 8)...].allSatisfy({ $0 == 0 }) else { return nil }
    return (0..<whole).map { index in bits[index * 8..<index * 8 + 8].reduce(0) { $0 << 1 | $1 } }
  }

  /// The model of encoding: six bits at a time, then padding to a whole group when asked.
  static func encodingModel(_ bytes: [UInt8], urlSafe: Bool, pad: Bool) -> String {
    let alphabet = Array(
      ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + (urlSafe ? "-_" : "+/")))
    var bits = bytes.flatMap { byte in (0..<8).reversed().map { Int(byte >> UInt8($0) & 1) } }
    while bits.count % 6 != 0 { bits.append(0) }
    var text = String(
      stride(from: 0, to: bits.count, by: 6).map { at in alphabet[bits[at..<at + 6].reduce(0) { $0 << 1 | $1 }] })
    while pad, text.count % 4 != 0 { text += "=" }
    return text
  }

  @Test("random bytes, every length to 40: the encoder writes the model's text, padded and url-safe alike")
  func encodingAgainstModel() {
    for length in 0...40 {
      for _ in 0..<20 {
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
        #expect(Base64.encode(bytes) == Self.encodingModel(bytes, urlSafe: false, pad: true), "\(bytes)")
        #expect(Base64URL.encode(bytes) == Self.encodingModel(bytes, urlSafe: true, pad: false), "\(bytes)")
        #expect(Base64.encode(bytes[...]) == Base64.encode(bytes), "a slice")
      }
    }
  }

  @Test("random bytes encoded, then changed: the decoder answers as the model, byte for byte or nil")
  func againstModel() {
    var random = SystemRandomNumberGenerator()
    let noise = Array("AZaz09+/-_=. \n\t\u{7F}é".utf8)
    var compared = 0
    var refused = 0
    for round in 0..<3_000 {
      let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
      let urlSafe = round % 2 == 0
      var text = Array((urlSafe ? Base64URL.encode(bytes) : Base64.encode(bytes)).utf8)
      if round % 3 != 0, !text.isEmpty {
        // A change: one character replaced, inserted or removed.
        let at = Int.random(in: 0..<text.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: text[at] = noise.randomElement(using: &random)!
        case 1: text.insert(noise.randomElement(using: &random)!, at: at)
        default: text.remove(at: at)
        }
      }
      // base64url has no whitespace-ignoring form.
      let whitespace = round % 5 == 0 && !urlSafe
      let expected = Self.model(text, urlSafe: urlSafe, ignoringWhitespace: whitespace)
      let decoded = text.withUnsafeBufferPointer { utf8 in
        urlSafe ? Base64URL.decode(utf8: utf8) : Base64.decode(utf8: utf8, ignoringWhitespace: whitespace)
      }
      // The same through a String (and a Substring, which is not always contiguous).
      let string = String(decoding: text, as: UTF8.self)
      let fromString = urlSafe ? Base64URL.decode(string) : Base64.decode(string, ignoringWhitespace: whitespace)
      let fromSubstring =
        urlSafe ? Base64URL.decode(string[...]) : Base64.decode(string[...], ignoringWhitespace: whitespace)
      if text.allSatisfy({ $0 < 0x80 }) {
        #expect(fromString == expected)
        #expect(fromSubstring == expected)
      }
      #expect(decoded == expected, "\(String(decoding: text, as: UTF8.self).debugDescription)")
      if round % 3 == 0 { #expect(decoded == bytes) }
      compared += 1
      if expected == nil { refused += 1 }
    }
    #expect(compared > 2_000)
    #expect(refused > 300, "the changes include texts that are not base64")
  }
}
