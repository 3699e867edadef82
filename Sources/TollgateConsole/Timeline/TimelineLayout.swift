import Foundation
import TollgateCore
import TollgateSupport

/// One purchase's drawing (or the user's promotional grants'): its marks, in the timeline's order.
struct TimelineChart: Sendable {
  /// The element id of the chart's figure (`timeline-1`, …), what plan-change links point at.
  var id: String
  var store: Store
  /// The chain (originalTransactionId / purchaseToken / receiptId); empty for the grants' chart.
  var purchaseId: String
  /// The products the chain was, oldest first.
  var productIds: [String]
  var marks: [TimelineMark]

  /// "App Store 2000000123 · premium.monthly", or "Promotional grants".
  var heading: String {
    guard store != .promotional else { return "Promotional grants" }
    let products = productIds.isEmpty ? "" : " · " + productIds.joined(separator: " → ")
    return "\(TimelineText.storeName(store)) \(purchaseId)\(products)"
  }
}

/// Turns a `Timeline` into charts of marks: one chart per purchase (store and chain), one for
/// the promotional grants. Pure.
enum TimelineLayout {
  static func charts(_ timeline: Timeline, timeZone: TimeZone) -> [TimelineChart] {
    var order: [ChartKey] = []
    var entriesBy: [ChartKey: [Timeline.Entry]] = [:]
    for entry in timeline.entries {
      let key = ChartKey(entry)
      if entriesBy[key] == nil { order.append(key) }
      entriesBy[key, default: []].append(entry)
    }
    var ids: [ChartKey: String] = [:]
    for (index, key) in order.enumerated() { ids[key] = "timeline-\(index + 1)" }
    var charts = order.map { key in
      let entries = entriesBy[key] ?? []
      var products: [String] = []
      for entry in entries where entry.source == .history || entry.kind == .now {
        if let product = entry.productId, !products.contains(product) { products.append(product) }
      }
      return TimelineChart(
        id: ids[key] ?? "timeline", store: key.store, purchaseId: key.purchaseId, productIds: products,
        marks: marks(entries, nowMs: timeline.evaluatedAtMs, timeZone: timeZone) { linked in
          ids[ChartKey(store: key.store, purchaseId: linked)]
        })
    }
    // Plan changes across purchases: the replaced chain links to its successor, and back.
    for entry in timeline.entries where entry.kind == .replacedBy {
      guard let linked = entry.linkedPurchaseId,
        let successor = charts.firstIndex(where: { $0.store == entry.store && $0.purchaseId == linked }),
        let replacedId = ids[ChartKey(entry)]
      else { continue }
      charts[successor].marks.append(
        TimelineMark(
          style: .replaces, fromMs: entry.atMs, untilMs: nil, isSpan: false,
          title: TimelineText.lines([
            "Replaces \(TimelineText.storeName(entry.store)) \(entry.purchaseId)"
              + (entry.productChange.map { " (\($0.rawValue))" } ?? ""),
            ConsoleDate.text(ms: entry.atMs, timeZone: timeZone),
          ]),
          link: replacedId))
    }
    return charts
  }

  struct ChartKey: Hashable {
    var store: Store
    var purchaseId: String

    init(store: Store, purchaseId: String) {
      self.store = store
      self.purchaseId = purchaseId
    }

    init(_ entry: Timeline.Entry) {
      self.init(store: entry.store, purchaseId: entry.store == .promotional ? "" : entry.purchaseId)
    }
  }
}
