import Foundation
import TollgateCore
import TollgateSupport

extension TimelineLayout {
  /// The marks of one chart's entries (in the timeline's order): periods and grants as spans,
  /// with the refunded part of a refunded period; billing trouble as spans from its event until
  /// the chain's next change of state (or now); everything else as points.
  static func marks(
    _ entries: [Timeline.Entry], nowMs: Int64, timeZone: TimeZone, chartFor: (String) -> String?
  ) -> [TimelineMark] {
    var marks: [TimelineMark] = []
    func span(_ style: TimelineMark.Style, _ entry: Timeline.Entry, until: Int64?, _ lines: [String]) {
      marks.append(
        TimelineMark(
          style: style, fromMs: entry.atMs, untilMs: until, isSpan: true, title: TimelineText.lines(lines)))
    }
    func point(_ style: TimelineMark.Style, _ entry: Timeline.Entry, _ lines: [String], link: String? = nil) {
      marks.append(
        TimelineMark(
          style: style, fromMs: entry.atMs, untilMs: nil, isSpan: false, title: TimelineText.lines(lines), link: link))
    }
    let when = { (entry: Timeline.Entry) in ConsoleDate.text(ms: entry.atMs, timeZone: timeZone) }
    let evidence = { (entry: Timeline.Entry) in TimelineText.evidence(entry, timeZone: timeZone) }
    for (index, entry) in entries.enumerated() {
      let product = entry.productId.map { " · \($0)" } ?? ""
      switch entry.kind {
      case .trial, .introOffer, .period:
        let style: TimelineMark.Style = entry.kind == .trial ? .trial : entry.kind == .introOffer ? .introOffer : .paid
        span(
          style, entry, until: entry.untilMs,
          ["\(style.name)\(product)", TimelineText.range(entry.atMs, entry.untilMs, timeZone: timeZone)]
            + evidence(entry))
      case .refunded, .revoked:
        let style: TimelineMark.Style = entry.kind == .refunded ? .refund : .revoked
        point(style, entry, ["\(style.name)\(product)", when(entry)] + evidence(entry))
        let period = entries.last {
          [.trial, .introOffer, .period].contains($0.kind) && $0.transactionId == entry.transactionId
        }
        if let periodEnd = period?.untilMs, periodEnd > entry.atMs {
          span(
            .refundedPart, entry, until: periodEnd,
            [
              "\(TimelineMark.Style.refundedPart.name)\(product)",
              TimelineText.range(entry.atMs, periodEnd, timeZone: timeZone),
            ] + evidence(entry))
        }
      case .productChanged:
        let direction = entry.productChange.map { " (\($0.rawValue))" } ?? ""
        point(
          .planChange, entry,
          ["Plan change\(direction): \(entry.detail ?? "") → \(entry.productId ?? "?")", when(entry)]
            + evidence(entry).filter { !$0.hasPrefix("from ") })
      case .replacedBy:
        let direction = entry.productChange.map { " (\($0.rawValue))" } ?? ""
        point(
          .replacedBy, entry, ["\(TimelineMark.Style.replacedBy.name)\(direction)", when(entry)] + evidence(entry),
          link: entry.linkedPurchaseId.flatMap(chartFor))
      case .graceStarted, .billingIssue, .onHold, .paused:
        let style: TimelineMark.Style =
          switch entry.kind {
          case .graceStarted: .grace
          case .onHold: .hold
          case .paused: .pause
          default: entry.state == .gracePeriod ? .grace : .billingRetry
          }
        let end = entries[(index + 1)...].first { $0.atMs > entry.atMs && endsTrouble($0.kind) }
        let ongoing = end == nil
        span(
          style, entry, until: end?.atMs ?? max(nowMs, entry.atMs),
          [
            style.name,
            ongoing
              ? "since \(when(entry)), still at \(ConsoleDate.text(ms: nowMs, timeZone: timeZone))"
              : TimelineText.range(entry.atMs, end?.atMs, timeZone: timeZone)
                + " (until \(TimelineText.kindName(end?.kind)))",
          ] + evidence(entry))
      case .recovered, .expired, .optedOut, .optedIn, .transferredIn, .transferredOut, .transferRefused,
        .claimRefused, .granted, .grantRevoked:
        let style = pointStyle(entry.kind)
        point(style, entry, ["\(style.name)\(product)", when(entry)] + evidence(entry))
      case .grant:
        span(
          .grant, entry, until: entry.untilMs,
          [
            "Promotional grant of \(entry.productId ?? "?")",
            TimelineText.range(entry.atMs, entry.untilMs, timeZone: timeZone),
          ]
            + evidence(entry))
      case .now:
        point(
          .now, entry,
          [
            "Now: \(entry.state?.rawValue ?? "unknown")\(product)",
            "access until \(entry.untilMs.map { ConsoleDate.text(ms: $0, timeZone: timeZone) } ?? "no end")",
          ] + evidence(entry))
      }
    }
    return marks
  }

  /// Whether an entry ends a spell of billing trouble before it: the chain recovered, expired,
  /// started a new period, went into other trouble, or left.
  static func endsTrouble(_ kind: Timeline.Kind) -> Bool {
    switch kind {
    case .recovered, .expired, .graceStarted, .billingIssue, .onHold, .paused, .period, .trial, .introOffer, .refunded,
      .revoked, .transferredOut, .replacedBy:
      true
    default: false
    }
  }

  static func pointStyle(_ kind: Timeline.Kind) -> TimelineMark.Style {
    switch kind {
    case .recovered: .recovered
    case .expired: .expired
    case .optedOut: .optedOut
    case .optedIn: .optedIn
    case .transferredIn: .transferIn
    case .transferredOut: .transferOut
    case .transferRefused: .transferRefused
    case .claimRefused: .claimRefused
    case .granted: .granted
    case .grantRevoked: .grantRevoked
    default: .now
    }
  }
}
