import Foundation
import TollgateCrypto

/// The Amazon Appstore side of the simulator, from Swift: where production code should point,
/// and the scenarios (the control API under `/sim/amazon/…` calls the same methods). Every
/// method that takes a receipt id accepts any receipt of the subscription.
extension StoreSimulator {
  // MARK: Where to point the production Amazon code

  /// RVS production base (Amazon: `https://appstore-sdk.amazon.com`): requests go to
  /// `{base}/version/1.0/verifyReceiptId/developer/{sharedSecret}/user/{userId}/receiptId/{receiptId}`.
  public var amazonRVSBaseURL: String { baseURL }
  /// The RVS Cloud Sandbox base (Amazon: `https://appstore-sdk.amazon.com/sandbox`).
  public var amazonRVSSandboxBaseURL: String { baseURL + "/sandbox" }
  /// The messages' `SigningCertURL`; trust the prefix `amazonSNSCertificateURLPrefix`.
  public var amazonSigningCertificateURL: String { baseURL + AmazonSNSSigner.certificatePath }
  /// `{simBase}/sns/`: the URL prefix a verifier must trust besides `https://sns.<region>.amazonaws.com/`.
  public var amazonSNSCertificateURLPrefix: String { baseURL + "/sns/" }
  /// The SNS signing certificate, PEM (also `DIR/amazon-sns-cert.pem`).
  public var amazonSigningCertificatePEM: String { amazonSigner.certificatePEM }
  public var amazonSigningCertificate: Certificate { amazonSigner.certificate }
  /// The topic ARN of the app's Real-Time Notifications (the only app's when `nil`).
  public func amazonTopicArn(_ appPackageName: String? = nil) throws(StoreSimulatorError) -> String {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      try state.amazon.app(appPackageName).topicArn
    }
  }
  /// The app's shared secret (the only app's when `nil`).
  public func amazonSharedSecret(_ appPackageName: String? = nil) throws(StoreSimulatorError) -> String {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      try state.amazon.app(appPackageName).sharedSecret
    }
  }

  // MARK: Scenarios

  public func amazonPurchase(_ request: AmazonPurchaseRequest) async throws(StoreSimulatorError)
    -> AmazonPurchaseResult
  {
    try await amazonMutate { (state: inout State) throws(StoreSimulatorError) in
      try state.amazon.purchase(request, core: &state.core)
    }
  }

  /// A receipt's state (and its subscription's).
  public func amazonReceipt(_ receiptId: String) throws(StoreSimulatorError) -> AmazonReceiptSnapshot {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in try state.amazon.snapshot(receiptId) }
  }

  /// Cancelled now (`cancelDate` = now): a customer-service refund or cancellation.
  /// - Parameter cancelReason: 1 the customer (default), 2 Amazon's system, 0 unavailable.
  @discardableResult
  public func amazonCancel(_ receiptId: String, cancelReason: Int = 1) async throws(StoreSimulatorError)
    -> AmazonReceiptSnapshot
  {
    try await amazonChange(receiptId) { store, core throws(StoreSimulatorError) in
      try store.cancel(receiptId, reason: cancelReason, core: &core)
    }
  }

  /// The customer is refunded: the purchase is cancelled now with `cancelReason` 1.
  @discardableResult
  public func amazonRefund(_ receiptId: String) async throws(StoreSimulatorError) -> AmazonReceiptSnapshot {
    try await amazonCancel(receiptId, cancelReason: 1)
  }

  @discardableResult
  public func amazonSetAutoRenew(_ receiptId: String, enabled: Bool) async throws(StoreSimulatorError)
    -> AmazonReceiptSnapshot
  {
    try await amazonChange(receiptId) { store, core throws(StoreSimulatorError) in
      try store.setAutoRenew(receiptId, enabled: enabled, core: &core)
    }
  }

  /// Renewal payments fail from now on: the next term end starts the grace period.
  @discardableResult
  public func amazonFailRenewals(_ receiptId: String) async throws(StoreSimulatorError) -> AmazonReceiptSnapshot {
    try await amazonChange(receiptId) { store, _ throws(StoreSimulatorError) in try store.failRenewals(receiptId) }
  }

  @discardableResult
  public func amazonRecoverPayment(_ receiptId: String) async throws(StoreSimulatorError) -> AmazonReceiptSnapshot {
    try await amazonChange(receiptId) { store, core throws(StoreSimulatorError) in
      try store.recoverPayment(receiptId, core: &core)
    }
  }

  /// A tier change to `sku` (term or parent SKU): immediate or at the next renewal. The answer
  /// is the snapshot of the subscription's current receipt (the new one when immediate).
  @discardableResult
  public func amazonChangeTier(_ receiptId: String, to sku: String, immediate: Bool) async throws(StoreSimulatorError)
    -> AmazonReceiptSnapshot
  {
    try await amazonMutate { (state: inout State) throws(StoreSimulatorError) in
      try state.amazon.changeTier(receiptId, to: sku, immediate: immediate, core: &state.core)
      return try state.amazon.snapshot(state.amazon.subscription(of: receiptId).currentReceiptId)
    }
  }

  /// Points the app's notifications at `url` (`nil`: none): a new SNS subscription, confirmed
  /// when the receiver visits the SubscribeURL of the SubscriptionConfirmation posted now.
  public func amazonSetNotificationURL(_ url: String?, appPackageName: String? = nil) async throws(StoreSimulatorError)
  {
    try await amazonMutate { (state: inout State) throws(StoreSimulatorError) in
      let app = try state.amazon.app(appPackageName)
      try state.amazon.subscribe(app.appPackageName, url: url, core: &state.core)
    }
  }

  /// The app's SNS subscription: `none`, `pendingConfirmation` or `confirmed`.
  public func amazonNotificationEndpoint(_ appPackageName: String? = nil) throws(StoreSimulatorError) -> String {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      let app = try state.amazon.app(appPackageName)
      return state.amazon.endpoints[app.appPackageName]?.status ?? "none"
    }
  }

  /// What `GET {SubscribeURL}` does; the subscription ARN, or `nil` for an unknown token.
  func amazonConfirmSubscription(token: String, topicArn: String?) async -> String? {
    let arn = try? await mutate { (state: inout State) throws(StoreSimulatorError) in
      state.amazon.confirm(token: token, topicArn: topicArn, core: &state.core)
    }
    if let arn = arn ?? nil {
      logger.info("amazon SNS subscription confirmed", metadata: ["amazon.subscription_arn": "\(arn)"])
      return arn
    }
    return nil
  }

  /// Queues the SubscriptionConfirmation of every app with a notification URL (at start).
  func amazonSubscribeConfiguredApps() async throws(StoreSimulatorError) {
    try await amazonMutate { (state: inout State) throws(StoreSimulatorError) in
      state.amazon.baseURL = self.baseURL
      for app in state.amazon.config.apps where app.notificationURL != nil {
        try state.amazon.subscribe(app.appPackageName, url: app.notificationURL, core: &state.core)
      }
    }
  }

  /// `mutate`, logging when notifications are held for an unconfirmed endpoint.
  private func amazonMutate<T: Sendable>(_ change: (inout State) throws(StoreSimulatorError) -> T)
    async throws(StoreSimulatorError) -> T
  {
    let (value, held) = try await mutate { (state: inout State) throws(StoreSimulatorError) in
      let before = state.amazon.endpoints.values.reduce(0) { $0 + $1.held.count }
      let value = try change(&state)
      return (value, state.amazon.endpoints.values.reduce(0) { $0 + $1.held.count } - before)
    }
    if held > 0 {
      logger.info(
        "amazon notifications held until the SNS subscription is confirmed (SubscribeURL not visited yet)",
        metadata: ["amazon.held": "\(held)"])
    }
    return value
  }

  /// Runs `change` on the Amazon store, then answers the receipt's snapshot.
  private func amazonChange(
    _ receiptId: String, _ change: (inout AmazonStore, inout SimCore) throws(StoreSimulatorError) -> Void
  ) async throws(StoreSimulatorError) -> AmazonReceiptSnapshot {
    try await amazonMutate { (state: inout State) throws(StoreSimulatorError) in
      try change(&state.amazon, &state.core)
      return try state.amazon.snapshot(receiptId)
    }
  }
}
