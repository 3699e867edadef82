import Foundation
import Testing

@testable import TollgateConsole

@Suite("ConsoleDate: a date in the operator's time zone, with its offset")
struct ConsoleDateTests {
  /// 2026-11-18 11:06:40 UTC.
  static let instant: Int64 = 1_795_000_000_000

  @Test(
    "one instant in four zones; summer time; a lifetime's end",
    arguments: [
      ("UTC", instant, "2026-11-18 11:06:40 +00:00"),
      ("Europe/Paris", instant, "2026-11-18 12:06:40 +01:00"),
      ("Asia/Tokyo", instant, "2026-11-18 20:06:40 +09:00"),
      ("America/Los_Angeles", instant, "2026-11-18 03:06:40 -08:00"),
      ("Asia/Kolkata", instant, "2026-11-18 16:36:40 +05:30"),
      ("Europe/Paris", instant - 140 * 86_400_000, "2026-07-01 13:06:40 +02:00"),
      ("Europe/Paris", Int64.max, "no end"),
    ])
  func text(zone: String, ms: Int64, expected: String) throws {
    let timeZone = try #require(TimeZone(identifier: zone))
    #expect(ConsoleDate.text(ms: ms, timeZone: timeZone) == expected)
  }

  @Test("the calendar day follows the zone; machines get UTC")
  func dayAndMachine() throws {
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    let lateInUTC = Self.instant + 13 * 3_600_000  // 2026-11-19 00:06:40 UTC, 09:06:40 in Tokyo
    #expect(ConsoleDate.day(ms: lateInUTC - 3_600_000, timeZone: tokyo) == "2026-11-19")
    #expect(ConsoleDate.day(ms: lateInUTC - 3_600_000, timeZone: ConsoleDate.utc) == "2026-11-18")
    #expect(ConsoleDate.machine(ms: Self.instant) == "2026-11-18T11:06:40Z")
  }
}
