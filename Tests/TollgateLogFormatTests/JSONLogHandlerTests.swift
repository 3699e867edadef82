import Foundation
import Logging
import Synchronization
import Testing
import TollgateCore

@testable import TollgateLogFormat

@Suite("JSON log lines")
struct JSONLogHandlerTests {
  /// The lines a handler wrote.
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
  }

  static func logger(_ lines: Lines, metadata: Logger.Metadata = [:]) -> Logger {
    var logger = Logger(label: "test.json") { label in
      JSONLogHandler(label: label, timestamp: { "2026-11-27T11:00:00.000Z" }, write: lines.append)
    }
    logger.logLevel = .debug
    for (key, value) in metadata { logger[metadataKey: key] = value }
    return logger
  }

  /// The one line written, parsed.
  static func object(_ lines: Lines) throws -> [String: Any] {
    let line = try #require(lines.all.last)
    #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false, "one line: \(line)")
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  @Test("a line holds the text format's keys and the metadata beside them, keys sorted")
  func keys() throws {
    let lines = Lines()
    Self.logger(lines, metadata: ["request_id": "abc-123"]).notice(
      "inbox item rejected", metadata: ["inbox.id": "42", "count": .stringConvertible(7)])
    let object = try Self.object(lines)
    #expect(object["timestamp"] as? String == "2026-11-27T11:00:00.000Z")
    #expect(object["level"] as? String == "notice")
    #expect(object["label"] as? String == "test.json")
    #expect(object["message"] as? String == "inbox item rejected")
    #expect(object["source"] as? String == "TollgateLogFormatTests")
    #expect(object["request_id"] as? String == "abc-123")
    #expect(object["inbox.id"] as? String == "42")
    #expect(object["count"] as? String == "7")
    let line = try #require(lines.all.last)
    let keys = ["count", "inbox.id", "label", "level", "message", "request_id", "source", "timestamp"]
    let positions = keys.map { line.range(of: "\"\($0)\":")?.lowerBound }
    #expect(positions.allSatisfy { $0 != nil } && positions.map { $0! } == positions.map { $0! }.sorted())
  }

  @Test("nested metadata is flattened with dots, arrays stay arrays, and no metadata key replaces a line's own")
  func flattening() throws {
    let lines = Lines()
    Self.logger(lines).info(
      "hello",
      metadata: [
        "webhook": ["endpoint": "hooks", "retry": ["in_ms": "50"]], "events": ["purchased", "renewed"],
        "message": "forged", "level": "critical",
      ])
    let object = try Self.object(lines)
    #expect(object["webhook.endpoint"] as? String == "hooks")
    #expect(object["webhook.retry.in_ms"] as? String == "50")
    #expect(object["events"] as? [String] == ["purchased", "renewed"])
    #expect(object["message"] as? String == "hello")
    #expect(object["level"] as? String == "info")
    #expect(object["metadata.message"] as? String == "forged")
    #expect(object["metadata.level"] as? String == "critical")
  }

  @Test("a key is written once: a literal a.b wins over nested a→b, a literal metadata.level over a renamed level")
  func oneValuePerKey() throws {
    let lines = Lines()
    Self.logger(lines).info(
      "hello",
      metadata: [
        "a": ["b": "nested"], "a.b": "literal", "level": "renamed", "metadata.level": "literal level",
      ])
    let line = try #require(lines.all.last)
    #expect(line.components(separatedBy: "\"a.b\":").count == 2, "a.b once: \(line)")
    #expect(line.components(separatedBy: "\"metadata.level\":").count == 2, "metadata.level once: \(line)")
    let object = try Self.object(lines)
    #expect(object["a.b"] as? String == "literal")
    #expect(object["metadata.level"] as? String == "literal level")
    #expect(object["level"] as? String == "info")
  }

  @Test("quotes, backslashes and every control character are escaped; the value reads back as it was")
  func escaping() throws {
    let lines = Lines()
    var nasty = "a\"b\\c\nd\re\tf\u{0}g\u{1B}[31mh\u{7F}i\u{85}j\u{2028}k\u{2029}l"
    nasty += String((0..<0x20).map { Character(UnicodeScalar($0)!) })
    Self.logger(lines).warning("\(nasty)", metadata: ["peer": "\(nasty)"])
    let line = try #require(lines.all.last)
    // No raw control character, nor a line separator, is left in the line.
    let raw = line.dropLast().unicodeScalars.filter {
      $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
    }
    #expect(raw.isEmpty, "raw: \(raw.map(\.value))")
    #expect(line.contains(#"a\"b\\c\nd\re\tf\u0000g\u001b[31mh\u007fi\u0085j\u2028k\u2029l"#))
    let object = try Self.object(lines)
    #expect(object["message"] as? String == nasty)
    #expect(object["peer"] as? String == nasty)
  }

  @Test("bytes that were not UTF-8, escaped and cut by StrangerText, stay one valid line")
  func strangerBytes() throws {
    let lines = Lines()
    let bytes: [UInt8] = [0x66, 0xFF, 0xFE, 0x0A, 0x22, 0xC3, 0x28] + Array(repeating: 0x41, count: 500)
    let decoded = String(decoding: bytes, as: UTF8.self)
    let loggable = StrangerText.loggable(decoded)
    Self.logger(lines).info("refused", metadata: ["header": "\(loggable)", "raw": "\(decoded)"])
    let line = try #require(lines.all.last)
    #expect(String(validating: Array(line.utf8), as: UTF8.self) == line)
    let object = try Self.object(lines)
    #expect(object["header"] as? String == loggable)
    #expect((object["header"] as? String)?.hasSuffix("bytes)") == true, "cut to size")
    #expect(object["raw"] as? String == decoded, "replacement characters, read back as they were")
  }

  @Test("the default timestamp is RFC 3339 in UTC with milliseconds")
  func timestamp() {
    let stamp = JSONLogHandler.utcTimestamp()
    #expect(stamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(stamp)")
  }
}
