/// One thing a timeline drawing shows: a span (a period, a spell of billing trouble, a grant) or
/// a point in time (a refund, a transfer, a refused claim, now), in one of a chart's lanes.
struct TimelineMark: Sendable, Hashable {
  var style: Style
  var fromMs: Int64
  /// A span's end; nil for a point. A span with no end (a lifetime purchase) runs off the right.
  var untilMs: Int64?
  var isSpan: Bool
  /// The hover text: what it is, its exact dates in the operator's time zone, and the evidence.
  var title: String
  /// The element id of another chart this mark links to (a plan change across purchases).
  var link: String? = nil

  enum Lane: Int, Sendable, CaseIterable {
    case periods, billing, events

    var label: String {
      switch self {
      case .periods: "Periods"
      case .billing: "Billing"
      case .events: "Events"
      }
    }
  }

  /// What a mark is, how it is drawn and what the legend calls it. The raw value is the mark's
  /// `data-kind` in the SVG.
  enum Style: String, Sendable, Hashable, CaseIterable {
    case trial
    case introOffer = "intro-offer"
    case paid
    case grant
    case refundedPart = "refunded-part"
    case grace
    case billingRetry = "billing-retry"
    case hold
    case pause
    case refund
    case revoked
    case planChange = "plan-change"
    case replacedBy = "replaced-by"
    case replaces
    case transferIn = "transfer-in"
    case transferOut = "transfer-out"
    case transferRefused = "transfer-refused"
    case claimRefused = "claim-refused"
    case recovered
    case expired
    case optedOut = "opted-out"
    case optedIn = "opted-in"
    case granted
    case grantRevoked = "grant-revoked"
    case now

    var name: String {
      switch self {
      case .trial: "Free trial"
      case .introOffer: "Introductory offer"
      case .paid: "Paid period"
      case .grant: "Promotional grant"
      case .refundedPart: "Refunded or revoked part"
      case .grace: "Grace period"
      case .billingRetry: "Billing retry"
      case .hold: "Account hold"
      case .pause: "Paused"
      case .refund: "Refund"
      case .revoked: "Revoked"
      case .planChange: "Plan change"
      case .replacedBy: "Replaced by another purchase"
      case .replaces: "Replaces another purchase"
      case .transferIn: "Transferred in"
      case .transferOut: "Transferred away"
      case .transferRefused: "Transfer refused"
      case .claimRefused: "Claim refused"
      case .recovered: "Recovered"
      case .expired: "Expired"
      case .optedOut: "Auto-renew off"
      case .optedIn: "Auto-renew on"
      case .granted: "Granted"
      case .grantRevoked: "Grant revoked"
      case .now: "Now"
      }
    }

    var lane: Lane {
      switch self {
      case .trial, .introOffer, .paid, .grant, .refundedPart: .periods
      case .grace, .billingRetry, .hold, .pause: .billing
      default: .events
      }
    }

    /// The fill; points also differ by shape (`shape`), so no mark is told apart by colour alone.
    var color: String {
      switch self {
      case .trial: "#8cc7ea"
      case .introOffer: "#62c3b0"
      case .paid: "#2471a3"
      case .grant: "#8e5fb5"
      case .refundedPart: "#c0392b"
      case .grace: "#f4b63f"
      case .billingRetry: "#e67e22"
      case .hold: "#b03a2e"
      case .pause: "#909ca3"
      case .refund, .claimRefused: "#c0392b"
      case .revoked: "#78281f"
      case .planChange, .replacedBy, .replaces: "#7d3c98"
      case .transferIn, .transferOut: "#1e8449"
      case .transferRefused: "#6e2c00"
      case .recovered, .optedIn: "#229954"
      case .expired, .optedOut: "#5d6d7e"
      case .granted, .grantRevoked: "#8e5fb5"
      case .now: "#17202a"
      }
    }

    enum Shape: Sendable {
      case bar, circle, ring, diamond, arrowRight, arrowLeft, triangleUp, triangleDown, square, cross, noEntry, pin
    }

    /// No two kinds of point share both shape and colour.
    var shape: Shape {
      switch self {
      case .trial, .introOffer, .paid, .grant, .refundedPart, .grace, .billingRetry, .hold, .pause: .bar
      case .refund, .revoked, .grantRevoked: .cross
      case .claimRefused: .noEntry
      case .planChange: .diamond
      case .replacedBy: .arrowRight
      case .replaces: .arrowLeft
      case .transferIn: .triangleUp
      case .transferOut: .triangleDown
      case .transferRefused: .square
      case .recovered, .expired, .granted: .circle
      case .optedOut, .optedIn: .ring
      case .now: .pin
      }
    }
  }
}
