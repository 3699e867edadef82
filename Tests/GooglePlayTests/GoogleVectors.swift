import Foundation
import TollgateTesting

/// Reads `../shared/vectors/google/…` in place (never copied into the repository).
enum GoogleVectors {
  static func data(_ relativePath: String) throws -> Data {
    Data(try Vectors.bytes("google/\(relativePath)"))
  }

  static func decode<T: Decodable>(_ relativePath: String, as type: T.Type = T.self) throws -> T {
    try JSONDecoder().decode(T.self, from: try data(relativePath))
  }

  static func text(_ relativePath: String) throws -> String {
    try Vectors.trimmed("google/\(relativePath)")
  }
}

/// ms since the epoch of a UTC date-time, for readable expectations.
func ms(_ text: String) -> Int64 {
  guard let value = RFC3339Fixture.parse(text) else { fatalError("bad fixture time \(text)") }
  return value
}

private enum RFC3339Fixture {
  static func parse(_ text: String) -> Int64? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) }
  }
}
