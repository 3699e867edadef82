import Foundation
import TollgateCore
import TollgateSupport

/// The words of the timeline's hover texts and lists: store names, date ranges in the operator's
/// time zone, and the evidence an entry rests on. Not escaped: the renderer escapes.
enum TimelineText {
  static func storeName(_ store: Store) -> String {
    switch store {
    case .appStore: "App Store"
    case .googlePlay: "Google Play"
    case .amazon: "Amazon Appstore"
    case .promotional: "Promotional"
    }
  }

  /// "A → B", "A → no end".
  static func range(_ fromMs: Int64, _ untilMs: Int64?, timeZone: TimeZone) -> String {
    ConsoleDate.text(ms: fromMs, timeZone: timeZone) + " → "
      + (untilMs.map { ConsoleDate.text(ms: $0, timeZone: timeZone) } ?? "no end")
  }

  static func lines(_ lines: [String]) -> String { lines.filter { !$0.isEmpty }.joined(separator: "\n") }

  /// An entry's kind in words ("the next period" for a period that ended trouble).
  static func kindName(_ kind: Timeline.Kind?) -> String {
    switch kind {
    case .period?, .trial?, .introOffer?: "the next period"
    case let kind?: kind.rawValue.replacingOccurrences(of: "_", with: " ")
    case nil: "now"
    }
  }

  /// What an entry rests on: the store's signed history (the transaction and when the store
  /// signed it), an event the worker wrote (its state and detail), a grant, or the last evaluation.
  static func evidence(_ entry: Timeline.Entry, timeZone: TimeZone) -> [String] {
    var lines: [String] = []
    let signed = entry.signedAtMs.map { "signed by the store \(ConsoleDate.text(ms: $0, timeZone: timeZone))" }
    switch entry.source {
    case .history:
      lines.append(
        "Evidence: the verified history"
          + (entry.transactionId.map { ", transaction \($0)" } ?? "")
          + ", " + (signed ?? "no signed date kept"))
    case .event:
      lines.append(
        "Evidence: the worker's \(entry.kind.rawValue) event"
          + (entry.transactionId.map { ", transaction \($0)" } ?? "")
          + (entry.state.map { ", state \($0.rawValue)" } ?? ""))
    case .grant:
      lines.append(
        "Evidence: promotional grant \(entry.purchaseId)" + (entry.state.map { ", \($0.rawValue) now" } ?? ""))
    case .now:
      lines.append(
        "Evidence: as last evaluated" + (signed.map { ", newest payload \($0)" } ?? ", no signed payload kept"))
    }
    if let detail = entry.detail, !detail.isEmpty { lines.append(detail) }
    return lines
  }
}
