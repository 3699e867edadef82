import Testing
import TollgateCrypto

/// The compact JWS reader against the String-splitting reading it replaced, over random texts made
/// of base64url characters and dots.
@Suite("Compact JWS: split by its bytes as by its text")
struct CompactJWSTests {
  /// The model: split the text at every `.`, then decode each segment.
  /// The header, payload, signature and signed bytes.
  static func model(_ text: String) -> Result<[[UInt8]], CompactJWS.Failure> {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return .failure(.segments(parts.count)) }
    guard let header = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
      let signature = Base64URL.decode(parts[2])
    else { return .failure(.base64) }
    return .success([header, payload, signature, Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)])
  }

  @Test("random texts of base64url characters and dots: the same segments, signed bytes and failures")
  func againstModel() {
    let characters = Array("AQgw09-_.=.")
    var splits = 0
    var failures: Set<CompactJWS.Failure> = []
    for round in 0..<4_000 {
      // Half of them made of three encoded segments, the rest any mix of the characters.
      let text =
        round % 2 == 0
        ? [1, 1, 0].map { least in
          Base64URL.encode((0..<Int.random(in: least...12)).map { _ in UInt8.random(in: 0...255) })
        }.joined(separator: ".")
        : String((0..<Int.random(in: 0...14)).map { _ in characters.randomElement()! })
      let expected = Self.model(text)
      let split = CompactJWS.split(text)
      switch (split, expected) {
      case (.success(let got), .success(let want)):
        #expect([got.header, got.payload, got.signature, got.signingInput] == want, "\(text)")
        splits += 1
      case (.failure(let got), .failure(let want)):
        #expect(got == want, "\(text)")
        failures.insert(got)
      default:
        Issue.record("\(text): \(split) against \(expected)")
      }
      #expect(CompactJWS.segmentCount(text) == text.split(separator: ".", omittingEmptySubsequences: false).count)
    }
    #expect(splits > 1_500)
    #expect(failures.contains(.base64) && failures.contains(.segments(1)) && failures.contains(.segments(4)))
  }
}
