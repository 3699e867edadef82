import Testing
import TollgateCallers

@Suite("CallerList: the configured callers")
struct CallerListTests {
  static func hex(_ key: String) -> String {
    CallerKey.digest(of: key).map { byte in
      let digits = Array("0123456789abcdef")
      return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
    }.joined()
  }

  @Test("callers with keys of their own are read")
  func distinctKeys() throws {
    let keys = try CallerList.keys(
      [
        .init(name: "web", keySha256: Self.hex("k1"), scopes: ["read", "submit"]),
        .init(name: "ops", keySha256: Self.hex("k2"), scopes: ["admin"]),
      ], source: "service.callers")
    #expect(keys.map(\.name) == ["web", "ops"])
    #expect(keys[1].scopes == .admin)
  }

  @Test("one key configured for two callers is refused, in either case of its hex digits")
  func duplicatedKey() {
    for second in [Self.hex("k1"), Self.hex("k1").uppercased()] {
      #expect(throws: CallerList.Problem.self) {
        try CallerList.keys(
          [
            .init(name: "web", keySha256: Self.hex("k1"), scopes: ["read"]),
            .init(name: "ops", keySha256: second, scopes: ["admin"]),
          ], source: "service.callers")
      }
    }
    do {
      _ = try CallerList.keys(
        [
          .init(name: "web", keySha256: Self.hex("k1"), scopes: ["read"]),
          .init(name: "ops", keySha256: Self.hex("k1"), scopes: ["admin"]),
        ], source: "service.callers")
    } catch {
      #expect(
        error.description == "service.callers[1].keySha256 is also caller \"web\"'s: each caller needs its own key")
    }
  }
}
