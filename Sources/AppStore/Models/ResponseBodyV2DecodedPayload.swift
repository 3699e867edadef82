/// A verified App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`), Apple's names.
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` or `appData` is present.
public struct ResponseBodyV2DecodedPayload: Sendable, Hashable, Decodable {
  /// Raw `notificationType` (see `NotificationTypeV2`).
  public var notificationType: String?
  /// Raw `subtype` (see `NotificationSubtype`).
  public var subtype: String?
  public var notificationUUID: String?
  public var data: NotificationData?
  public var version: String?
  @Milliseconds public var signedDate: Int64?
  public var summary: Summary?
  public var externalPurchaseToken: ExternalPurchaseToken?
  public var appData: AppData?

  public init() {}

  public var typedNotificationType: NotificationTypeV2? { notificationType.flatMap(NotificationTypeV2.init(rawValue:)) }
  public var typedSubtype: NotificationSubtype? { subtype.flatMap(NotificationSubtype.init(rawValue:)) }

  /// The app and environment the notification is about, from whichever part is present.
  /// An external purchase token's environment is Sandbox when its id starts with "SANDBOX".
  public var appContext: (bundleId: String?, appAppleId: Int64?, environment: String?) {
    if let data { return (data.bundleId, data.appAppleId, data.environment) }
    if let summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
    if let token = externalPurchaseToken {
      let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
      return (token.bundleId, token.appAppleId, (sandbox ? AppStoreEnvironment.sandbox : .production).rawValue)
    }
    if let appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
    return (nil, nil, nil)
  }
}

/// The `data` of a notification about a transaction.
public struct NotificationData: Sendable, Hashable, Decodable {
  public var environment: String?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var bundleVersion: String?
  /// A JWS; verify with `SignedDataVerifier.verifyTransaction`.
  public var signedTransactionInfo: String?
  /// A JWS; verify with `SignedDataVerifier.verifyRenewalInfo`.
  public var signedRenewalInfo: String?
  /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
  public var status: Int?
  public var consumptionRequestReason: String?

  public init() {}
}

/// The `summary` of a RENEWAL_EXTENSION/SUMMARY notification.
public struct Summary: Sendable, Hashable, Decodable {
  public var environment: String?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var productId: String?
  public var requestIdentifier: String?
  public var storefrontCountryCodes: [String]?
  public var succeededCount: Int64?
  public var failedCount: Int64?

  public init() {}
}

/// The `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
public struct ExternalPurchaseToken: Sendable, Hashable, Decodable {
  public var externalPurchaseId: String?
  @Milliseconds public var tokenCreationDate: Int64?
  public var appAppleId: Int64?
  public var bundleId: String?

  public init() {}
}

/// The `appData` of an app-level notification (RESCIND_CONSENT).
public struct AppData: Sendable, Hashable, Decodable {
  public var appAppleId: Int64?
  public var bundleId: String?
  public var environment: String?
  public var signedAppTransactionInfo: String?

  public init() {}
}
