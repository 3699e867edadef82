import Foundation
import Testing
import TollgateCore
import TollgateSupport

@testable import TollgateConsole

/// The timeline drawing, read back through an XML parse: which marks each store's history gives,
/// their exact times and hover texts in the operator's time zone, the links between purchases,
/// the legend, and the accessible text.
@Suite("TimelineSVG: each store's history drawn as SVG marks with exact dates and evidence")
struct TimelineSVGTests {
  static let paris = TimeZone(identifier: "Europe/Paris")!
  typealias F = TimelineFixtures

  static func parsed(_ timeline: Timeline, _ zone: TimeZone = paris) throws -> TimelineMarkup {
    let markup = TimelineMarkup(TimelineSVG.render(timeline, timeZone: zone))
    if let error = markup.error { throw error }
    return markup
  }

  /// The marks of the figure whose caption starts with `heading`.
  static func marks(_ markup: TimelineMarkup, _ heading: String) throws -> [TimelineMarkup.Element] {
    let figure = try #require(markup.figures.first { $0.all("figcaption").first?.text.hasPrefix(heading) == true })
    return figure.descendants.filter { $0.name == "g" && $0["data-kind"] != nil }
  }

  static func span(_ mark: TimelineMarkup.Element) -> (String, Int64?, Int64?) {
    (mark["data-kind"] ?? "", mark["data-from"].flatMap { Int64($0) }, mark["data-until"].flatMap { Int64($0) })
  }

  @Test("App Store: trial, paid month, upgrade, refund with its refunded part, grace then billing retry until now")
  func appStore() throws {
    let markup = try Self.parsed(F.appStore())
    let marks = try Self.marks(markup, "App Store 2000000001")
    let spans = marks.filter { $0["data-until"] != nil }.map(Self.span)
    #expect(
      spans.map(\.0) == ["trial", "paid", "paid", "refunded-part", "grace", "billing-retry"],
      "periods and billing trouble, as spans")
    let d = F.day
    #expect(spans[0].1 == F.start && spans[0].2 == F.start + 7 * d)
    #expect(spans[1].1 == F.start + 7 * d && spans[1].2 == F.start + 37 * d)
    #expect(
      spans[3].1 == F.start + 44 * d && spans[3].2 == F.start + 67 * d, "refunded from the refund to the period's end")
    #expect(spans[4].1 == F.start + 67 * d && spans[4].2 == F.start + 70 * d, "grace until the billing issue")
    #expect(spans[5].1 == F.start + 70 * d && spans[5].2 == F.now, "billing retry still runs: until now")
    let points = marks.filter { $0["data-until"] == nil }.map { $0["data-kind"] ?? "" }
    #expect(Set(points) == ["plan-change", "refund", "now"])

    let trial = try #require(marks.first { $0["data-kind"] == "trial" }?.title)
    #expect(trial.contains("Free trial · premium.monthly"))
    #expect(trial.contains("2026-11-18 12:06:40 +01:00 → 2026-11-25 12:06:40 +01:00"), "exact dates in Paris time")
    #expect(trial.contains("transaction 2000000001"))
    #expect(trial.contains("signed by the store 2026-11-18 12:07:40 +01:00"), "the evidence's signed date")
    let change = try #require(marks.first { $0["data-kind"] == "plan-change" }?.title)
    #expect(change.contains("Plan change (upgrade): from premium.monthly → pro.monthly"))
    let retry = try #require(marks.first { $0["data-kind"] == "billing-retry" }?.title)
    #expect(retry.contains("the worker's billing_issue event"))
    #expect(retry.contains("still at"))

    let refused = try Self.marks(markup, "App Store 2000000999")
    #expect(refused.map { $0["data-kind"] } == ["claim-refused"], "a refused claim of another purchase")
    #expect(refused.first?.title?.contains("app account token names another user") == true)
  }

  @Test("Google Play: transferred in, replaced by an upgrade linked both ways, paused, resumed, on hold now")
  func googlePlay() throws {
    let markup = try Self.parsed(F.googlePlay())
    let old = try Self.marks(markup, "Google Play token-old")
    let new = try Self.marks(markup, "Google Play token-new")
    let figures = Dictionary(
      uniqueKeysWithValues: markup.figures.map { ($0.all("figcaption").first?.text ?? "", $0["id"] ?? "") })
    let oldId = try #require(figures.first { $0.key.hasPrefix("Google Play token-old") }?.value)
    let newId = try #require(figures.first { $0.key.hasPrefix("Google Play token-new") }?.value)

    #expect(old.map { $0["data-kind"] ?? "" }.filter { $0 != "paid" } == ["transfer-in", "replaced-by", "now"])
    let replaced = try #require(old.first { $0["data-kind"] == "replaced-by" })
    #expect(replaced.parent?.name == "a" && replaced.parent?["href"] == "#\(newId)", "links to the new purchase")
    #expect(replaced.title?.contains("Replaced by another purchase (upgrade)") == true)
    let replaces = try #require(new.first { $0["data-kind"] == "replaces" })
    #expect(replaces.parent?["href"] == "#\(oldId)", "and back")
    #expect(replaces["data-from"] == String(F.start + 50 * F.day))

    let spans = new.filter { $0["data-until"] != nil }.map(Self.span)
    #expect(spans.map(\.0) == ["paid", "pause", "paid", "hold"], "in time order")
    #expect(spans[1].1 == F.start + 60 * F.day && spans[1].2 == F.start + 64 * F.day, "paused until recovered")
    #expect(spans[3].1 == F.start + 66 * F.day && spans[3].2 == F.now, "on hold until now")
    let transfer = try #require(old.first { $0["data-kind"] == "transfer-in" }?.title)
    #expect(transfer.contains("from bob under always_transfer"))
  }

  @Test("Amazon: trial term then paid, auto-renew off, expired; a receipt transferred away; a refused transfer")
  func amazon() throws {
    let markup = try Self.parsed(F.amazon())
    let receipt = try Self.marks(markup, "Amazon Appstore amzn-r1")
    #expect(receipt.map { $0["data-kind"] ?? "" } == ["trial", "paid", "opted-out", "expired", "now"])
    #expect(receipt.first?.title?.contains("transaction amzn-r1#trial") == true)
    let away = try Self.marks(markup, "Amazon Appstore amzn-r3")
    #expect(away.map { $0["data-kind"] } == ["transfer-out"])
    #expect(away.first?.title?.contains("to bob (from alice under always_transfer)") == true)
    let refused = try Self.marks(markup, "Amazon Appstore amzn-r2")
    #expect(refused.map { $0["data-kind"] } == ["transfer-refused"])
  }

  @Test("every mark has its hover text as its first child and as its accessible name; the legend names each kind drawn")
  func accessibleTextAndLegend() throws {
    for timeline in [F.appStore(), F.googlePlay(), F.amazon()] {
      let markup = try Self.parsed(timeline)
      #expect(!markup.marks.isEmpty)
      for mark in markup.marks {
        #expect(mark.children.first?.name == "title")
        let title = try #require(mark.title)
        #expect(mark["role"] == "img")
        #expect(mark["aria-label"] == title.replacingOccurrences(of: "\n", with: "; "))
      }
      for svg in markup.all("svg") where svg["role"] == "group" {
        let labelId = try #require(svg["aria-labelledby"])
        #expect(svg.all("title").contains { $0["id"] == labelId }, "the drawing is named by its own title")
      }
      let legend = try #require(markup.all("ul").first { $0["class"] == "timeline-legend" })
      let legendKinds = Set(legend.children.compactMap { $0["data-kind"] })
      #expect(legendKinds == Set(markup.marks.compactMap { $0["data-kind"] }))
      // The list under each figure says the same as its drawing, in text.
      for figure in markup.figures {
        let drawn = figure.descendants.filter { $0.name == "g" && $0["data-kind"] != nil }
        let listed = figure.all("li")
        #expect(listed.count == drawn.count)
        let texts = listed.map { $0.text.replacingOccurrences(of: " (see that purchase)", with: "") }
        #expect(Set(texts) == Set(drawn.compactMap { $0["aria-label"] }))
      }
    }
  }

  @Test("no two kinds of mark look alike: each has its own shape and colour")
  func kindsLookApart() {
    let looks = TimelineMark.Style.allCases.map { "\($0.shape) \($0.color)" }
    #expect(Set(looks).count == TimelineMark.Style.allCases.count)
  }

  @Test("dates follow the operator's time zone: hover texts and the axis's ticks at local midnights")
  func timeZones() throws {
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    let markup = try Self.parsed(F.appStore(), tokyo)
    let trial = try #require(markup.marks.first { $0["data-kind"] == "trial" }?.title)
    #expect(trial.contains("2026-11-18 20:06:40 +09:00 → 2026-11-25 20:06:40 +09:00"))
    #expect(markup.all("p").first?.text == "Dates in Asia/Tokyo.")
    let labels = markup.all("g").first { $0["class"] == "axis" }?.all("text").map(\.text) ?? []
    #expect(labels.count >= 2 && labels.count <= TimelineAxis.maxTicks)
    #expect(labels.allSatisfy { $0.count == 7 || $0.count == 10 }, "months or days: \(labels)")
    // 72 days of history and no more than 8 ticks: month starts, each at midnight in Tokyo.
    let axis = TimelineAxis(
      marks: TimelineLayout.charts(F.appStore(), timeZone: tokyo).flatMap(\.marks), nowMs: F.now, timeZone: tokyo)
    for tick in axis.ticks {
      #expect(ConsoleDate.text(ms: tick.atMs, timeZone: tokyo).contains(" 00:00:00 +09:00"))
    }
  }

  @Test("a lifetime purchase runs off the right edge; text a stranger wrote is escaped and the SVG stays XML")
  func lifetimeAndEscaping() throws {
    let lifetime = TimelineFixtures.chain(
      .appStore, "3000000001",
      transactions: [
        StoreTransaction(
          transactionId: "3000000001", productId: "lifetime", purchaseDateMs: F.start, expiresDateMs: Int64.max)
      ], state: .active, reason: "lifetime_purchase", accessEndsAtMs: Int64.max)
    let grant = PromotionalGrant(
      grantId: "7", userId: "alice", entitlement: "premium", grantedAtMs: F.start + F.day,
      expiresAtMs: F.start + 400 * F.day, note: "<script>alert('x')</script> & \"quotes\" \u{1}bell")
    let timeline = TimelineBuilder.timeline(
      userId: "alice", nowMs: F.now, subscriptions: [lifetime], events: [], grants: [grant])
    let html = TimelineSVG.render(timeline, timeZone: Self.paris)
    #expect(!html.contains("<script>"))
    let markup = try Self.parsed(timeline)
    let period = try #require(markup.marks.first { $0["data-kind"] == "paid" })
    #expect(period["data-until"] == "none")
    #expect(period.all("path").count == 1, "an arrow at the right edge")
    #expect(period.title?.contains("→ no end") == true)
    let grantMark = try #require(markup.marks.first { $0["data-kind"] == "grant" })
    #expect(grantMark.title?.contains("<script>alert('x')</script> & \"quotes\" bell") == true, "escaped, read back")
    #expect(grantMark.all("path").count == 1, "a grant past the axis's end runs off it too")
    #expect(try Self.marks(markup, "Promotional grants").count == 1)
  }
}
