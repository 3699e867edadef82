import Testing
import TollgateCore

@Suite("A stranger's text as logs hold it")
struct StrangerTextTests {
  @Test("control characters, quotes and non-ASCII are escaped: a newline cannot start a forged line")
  func escaped() {
    let forged = "x\n2026-11-26T20:00:00+0000 info tollgate.rpc: caller=admin authenticated\u{1B}[2J\u{202E}\"é"
    let logged = StrangerText.loggable(forged, limit: 200)
    #expect(!logged.contains("\n") && !logged.contains("\u{1B}") && !logged.contains("\u{202E}"))
    #expect(logged.hasPrefix("x\\n2026-11-26T20:00:00+0000 info"))
    #expect(logged.contains("authenticated\\u{1B}[2J\\u{202E}\\\"\\u{"))
    #expect(!logged.contains("é"))
    #expect(logged.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
  }

  @Test("long text is cut to its first scalars and says how many bytes it had")
  func truncated() {
    let name = String(repeating: "a", count: 1_000_000)
    #expect(StrangerText.loggable(name) == String(repeating: "a", count: 64) + "…(1000000 bytes)")
    #expect(StrangerText.loggable("short") == "short")
    #expect(StrangerText.loggable("") == "")
  }
}
