/// `subscriptionNotification.notificationType` (developer.android.com/google/play/billing/rtdn-reference).
enum GoogleNotificationType: Int, Sendable {
  case recovered = 1
  case renewed = 2
  case canceled = 3
  case purchased = 4
  case onHold = 5
  case inGracePeriod = 6
  case restarted = 7
  case priceChangeConfirmed = 8
  case deferred = 9
  case paused = 10
  case pauseScheduleChanged = 11
  case revoked = 12
  case expired = 13
  case priceChangeUpdated = 19
  case priceStepUpConsentUpdated = 22

  /// Google's constant name, as the notification log shows it.
  var name: String {
    switch self {
    case .recovered: "SUBSCRIPTION_RECOVERED"
    case .renewed: "SUBSCRIPTION_RENEWED"
    case .canceled: "SUBSCRIPTION_CANCELED"
    case .purchased: "SUBSCRIPTION_PURCHASED"
    case .onHold: "SUBSCRIPTION_ON_HOLD"
    case .inGracePeriod: "SUBSCRIPTION_IN_GRACE_PERIOD"
    case .restarted: "SUBSCRIPTION_RESTARTED"
    case .priceChangeConfirmed: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED"
    case .deferred: "SUBSCRIPTION_DEFERRED"
    case .paused: "SUBSCRIPTION_PAUSED"
    case .pauseScheduleChanged: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED"
    case .revoked: "SUBSCRIPTION_REVOKED"
    case .expired: "SUBSCRIPTION_EXPIRED"
    case .priceChangeUpdated: "SUBSCRIPTION_PRICE_CHANGE_UPDATED"
    case .priceStepUpConsentUpdated: "SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED"
    }
  }
}
