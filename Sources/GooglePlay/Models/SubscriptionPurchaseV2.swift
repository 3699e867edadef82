import TollgateCore

/// A `purchases.subscriptionsv2` resource (Android Publisher v3 `SubscriptionPurchaseV2`), with
/// Google's field names: the source of truth for one subscription `purchaseToken`.
///
/// Every field is optional, unknown fields are ignored, and enums keep their raw value beside a
/// typed accessor, so a state Google adds later decodes instead of failing.
public struct SubscriptionPurchaseV2: Sendable, Hashable, Decodable {
  /// "androidpublisher#subscriptionPurchaseV2".
  public var kind: String?
  /// ISO 3166-1 alpha-2 billing country at the time the subscription was granted.
  public var regionCode: String?
  /// Item-level info; elements that do not decode are left out (`$lineItems.droppedCount`).
  @LossyList public var lineItems: [SubscriptionPurchaseLineItem]?
  @GoogleTime public var startTime: Int64?
  /// Raw `subscriptionState`, e.g. SUBSCRIPTION_STATE_ACTIVE.
  public var subscriptionState: String?
  /// Deprecated by Google in favour of the line items' `latestSuccessfulOrderId`.
  public var latestOrderId: String?
  /// The purchase this one replaced (upgrade, downgrade, re-signup).
  public var linkedPurchaseToken: String?
  public var pausedStateContext: PausedStateContext?
  public var canceledStateContext: CanceledStateContext?
  public var inGracePeriodStateContext: RenewalDeclinedStateContext?
  public var onHoldStateContext: RenewalDeclinedStateContext?
  /// Present (even as `{}`) only for a test purchase.
  public var testPurchase: Marker?
  /// Raw `acknowledgementState`, e.g. ACKNOWLEDGEMENT_STATE_PENDING.
  public var acknowledgementState: String?
  public var externalAccountIdentifiers: ExternalAccountIdentifiers?
  public var subscribeWithGoogleInfo: SubscribeWithGoogleInfo?
  public var outOfAppPurchaseContext: OutOfAppPurchaseContext?
  public var etag: String?

  public init() {}

  public var typedSubscriptionState: GooglePlaySubscriptionState? {
    subscriptionState.flatMap(GooglePlaySubscriptionState.init(rawValue:))
  }
  public var typedAcknowledgementState: AcknowledgementState? {
    acknowledgementState.flatMap(AcknowledgementState.init(rawValue:))
  }
  /// Whether this is a test purchase: `testPurchase` is present.
  public var isTestPurchase: Bool { testPurchase != nil }
}

/// `acknowledgementState` of subscriptionsv2 and productsv2.
public enum AcknowledgementState: String, Sendable, Hashable, CaseIterable {
  case unspecified = "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"
  case pending = "ACKNOWLEDGEMENT_STATE_PENDING"
  case acknowledged = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
}

/// `pausedStateContext`.
public struct PausedStateContext: Sendable, Hashable, Decodable {
  /// When the subscription resumes by itself.
  @GoogleTime public var autoResumeTime: Int64?
}

/// `canceledStateContext`: exactly one of its members says who canceled.
public struct CanceledStateContext: Sendable, Hashable, Decodable {
  public var userInitiatedCancellation: UserInitiatedCancellation?
  public var systemInitiatedCancellation: Marker?
  public var developerInitiatedCancellation: Marker?
  public var replacementCancellation: Marker?
}

/// `canceledStateContext.userInitiatedCancellation`.
public struct UserInitiatedCancellation: Sendable, Hashable, Decodable {
  public var cancelSurveyResult: CancelSurveyResult?
  @GoogleTime public var cancelTime: Int64?
}

/// `cancelSurveyResult`.
public struct CancelSurveyResult: Sendable, Hashable, Decodable {
  /// Raw `reason`, e.g. CANCEL_SURVEY_REASON_COST_RELATED.
  public var reason: String?
  public var reasonUserInput: String?
}

/// `inGracePeriodStateContext` / `onHoldStateContext`.
public struct RenewalDeclinedStateContext: Sendable, Hashable, Decodable {
  public var renewalDeclined: RenewalDeclined?
}

/// `renewalDeclined`: the order Google could not charge.
public struct RenewalDeclined: Sendable, Hashable, Decodable {
  public var pendingOrderId: String?
}

/// `externalAccountIdentifiers`.
public struct ExternalAccountIdentifiers: Sendable, Hashable, Decodable {
  /// Set by the app through `setObfuscatedAccountId`: binds the purchase to a user.
  public var obfuscatedExternalAccountId: String?
  public var obfuscatedExternalProfileId: String?
  /// Only for purchases made before Google's obfuscated ids existed.
  public var externalAccountId: String?
}

/// `subscribeWithGoogleInfo` (Subscribe with Google, not Play Billing).
public struct SubscribeWithGoogleInfo: Sendable, Hashable, Decodable {
  public var profileId: String?
  public var profileName: String?
  public var emailAddress: String?
  public var givenName: String?
  public var familyName: String?
}

/// `outOfAppPurchaseContext`: the purchase expired and was bought again outside the app.
public struct OutOfAppPurchaseContext: Sendable, Hashable, Decodable {
  public var expiredPurchaseToken: String?
  public var expiredExternalAccountIdentifiers: ExternalAccountIdentifiers?
}
