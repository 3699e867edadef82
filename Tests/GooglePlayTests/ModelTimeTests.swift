import Foundation
import GooglePlay
import Testing

@Suite("Google RFC 3339 times and money")
struct ModelTimeTests {
  @Test(arguments: [
    ("2026-10-05T14:32:11.512Z", Int64(1_791_210_731_512)),
    ("2026-09-20T00:00:00Z", Int64(1_789_862_400_000)),
    ("2025-10-05T14:32:11.512Z", Int64(1_759_674_731_512)),
    ("1970-01-01T00:00:00Z", Int64(0)),
    ("1969-12-31T23:59:59.999Z", Int64(-1)),
    ("2024-02-29T12:00:00.1Z", Int64(1_709_208_000_100)),
    ("2020-12-11T05:53:05.929123456Z", Int64(1_607_665_985_929)),
    ("2026-09-20T02:00:00+02:00", Int64(1_789_862_400_000)),
    ("2026-09-19T19:30:00-04:30", Int64(1_789_862_400_000)),
  ])
  func parses(text: String, expected: Int64) {
    #expect(RFC3339.milliseconds(text) == expected)
  }

  @Test(arguments: [
    "", "2026-09-20", "2026-09-20T00:00:00", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
    "2026-09-20T24:00:00Z", "2026-09-20T00:00:00.Z", "2026-09-20T00:00:00Zjunk", "2026-09-20T00:00:00+0200",
    "1756911600000",
  ])
  func rejects(text: String) {
    #expect(RFC3339.milliseconds(text) == nil)
  }

  @Test func aMalformedTimeFailsTheFieldNotSilently() {
    let body = Data(#"{"pausedStateContext": {"autoResumeTime": "tomorrow"}}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: body) }
  }

  @Test func moneyUnitsAreAStringWithNanos() throws {
    let money = try JSONDecoder().decode(
      Money.self, from: Data(#"{"currencyCode": "USD", "units": "9", "nanos": 990000000}"#.utf8))
    #expect(money.units == "9" && money.nanos == 990_000_000 && money.amountMicros == 9_990_000)
    let numeric = try JSONDecoder().decode(Money.self, from: Data(#"{"units": 12}"#.utf8))
    #expect(numeric.units == "12" && numeric.amountMicros == 12_000_000)
    let huge = try JSONDecoder().decode(Money.self, from: Data(#"{"units": "9223372036854775807"}"#.utf8))
    #expect(huge.amountMicros == nil)
  }
}
