import Testing
import TollgateSupport

@Suite("ISO8601Text: Int64 ms to RFC 3339 UTC with milliseconds and back, exactly")
struct ISO8601TextTests {
  @Test("known instants print as UTC with three fraction digits")
  func knownInstants() {
    #expect(ISO8601Text.text(ms: 0) == "1970-01-01T00:00:00.000Z")
    #expect(ISO8601Text.text(ms: 1_795_756_260_123) == "2026-11-27T05:11:00.123Z")
    #expect(ISO8601Text.text(ms: 951_782_400_000) == "2000-02-29T00:00:00.000Z", "a leap day")
    #expect(ISO8601Text.text(ms: -1) == "1969-12-31T23:59:59.999Z", "before the epoch, floored")
  }

  @Test("a lifetime (Int64.max), nil and a time past year 9999 print as nothing")
  func none() {
    #expect(ISO8601Text.text(ms: Int64.max) == "")
    #expect(ISO8601Text.text(ms: nil as Int64?) == "")
    #expect(ISO8601Text.text(ms: 253_402_300_800_000) == "", "10000-01-01")
    #expect(ISO8601Text.text(ms: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
  }

  @Test("every printed time parses back to the same ms")
  func roundTrip() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let ms = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
      #expect(ISO8601Text.ms(ISO8601Text.text(ms: ms)) == ms)
    }
  }

  @Test("offsets, lower-case separators and fractions of any length are read as RFC 3339 says")
  func parsing() {
    #expect(ISO8601Text.ms("2026-11-27T05:11:00Z") == 1_795_756_260_000)
    #expect(ISO8601Text.ms("2026-11-27t05:11:00.1z") == 1_795_756_260_100)
    #expect(ISO8601Text.ms("2026-11-27T06:11:00.123+01:00") == 1_795_756_260_123)
    #expect(ISO8601Text.ms("2026-11-26T23:41:00.123-05:30") == 1_795_756_260_123)
    #expect(ISO8601Text.ms("2026-11-27T05:11:00.123999Z") == 1_795_756_260_123, "past ms: truncated")
  }

  @Test("what is not an RFC 3339 date-time is refused")
  func refusals() {
    for text in [
      "", "2026-11-27", "2026-11-27T05:11Z", "2026-11-27 05:11:00Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
      "2026-11-27T24:00:00Z", "2026-11-27T23:59:60Z", "2026-11-27T05:11:00", "2026-11-27T05:11:00.Z",
      "2026-11-27T05:11:00+0100", "0000-01-01T00:00:00Z", "2026-11-27T05:11:00Z ", "１０２６-11-27T05:11:00Z",
      "1795756260000",
    ] {
      #expect(ISO8601Text.ms(text) == nil, "\(text)")
    }
  }
}
