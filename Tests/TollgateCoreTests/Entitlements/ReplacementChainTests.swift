import Testing
import TollgateCore

/// The chain of purchases a Google Play purchase replaced, on its entitlement records.
@Suite("Replacement chains")
struct ReplacementChainTests {
  static func token(_ id: String, linked: String?, from: Int64, to: Int64) -> SubscriptionHistory {
    GooglePlayRows.token(
      id, [period("GPA.\(id)", "pro_monthly", from: from, to: to)],
      GooglePlayRows.state(.active), linked: linked)
  }

  @Test("a record names the purchases its own replaced, newest first, through every stored link")
  func chain() {
    let histories = [
      Self.token("t1", linked: nil, from: 0, to: 30), Self.token("t2", linked: "t1", from: 10, to: 40),
      Self.token("t3", linked: "t2", from: 20, to: 50),
    ]
    let catalog = ProductCatalog(
      entitlements: [EntitlementDefinition(id: "pro")],
      products: [ProductConfig(productId: "pro_monthly", entitlements: ["pro"])])
    let records = EntitlementMapping.records(
      userId: "u", histories: histories, grants: [], config: catalog, nowMs: d(25))
    let bySource = Dictionary(uniqueKeysWithValues: records.map { ($0.source, $0.replaces) })
    #expect(bySource["google_play:t3"] == ["t2", "t1"])
    #expect(bySource["google_play:t2"] == ["t1"])
    #expect(bySource["google_play:t1"] == [])
    // A link to a purchase never stored still names it; a loop ends.
    let orphan = ReplacementChains([Self.token("t9", linked: "t8", from: 0, to: 30)])
    #expect(orphan.replaced(by: "t9", store: .googlePlay) == ["t8"])
    let loop = ReplacementChains([
      Self.token("a", linked: "b", from: 0, to: 30), Self.token("b", linked: "a", from: 0, to: 30),
    ])
    #expect(loop.replaced(by: "a", store: .googlePlay) == ["b"])
    #expect(loop.replaced(by: "a", store: .appStore) == [])
  }
}
