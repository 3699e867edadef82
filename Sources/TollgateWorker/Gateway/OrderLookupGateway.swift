import TollgateCore

/// A store that can list the purchases of one customer order: the App Store's Look Up Order ID,
/// for the order id on the customer's receipt e-mail. Apple's signed transactions do not carry
/// that id, so Tollgate never stores it; support's lookup (`TollgateSupport`) asks the store
/// through this seam and maps each line back to the chains it stores.
public protocol OrderLookupGateway: StoreGateway {
  /// The verified purchases of `orderId`, in every configured app; empty when no app has such an
  /// order. A line whose signed payload fails verification is dropped (and logged), never
  /// returned. Calls go through the gateway's `callLimiter`, like every other call to the store.
  func lookUpOrder(_ orderId: String) async throws(StoreFailure) -> [OrderLine]
}

/// One purchase of a customer order, as the store signed it.
public struct OrderLine: Sendable, Hashable {
  /// The app it was bought in (the bundle id).
  public var appId: String
  public var transactionId: String
  /// The chain the purchase belongs to.
  public var originalTransactionId: String
  public var productId: String
  public var environment: StoreEnvironment
  /// When the store signed the transaction.
  public var signedAtMs: Int64?

  public init(
    appId: String, transactionId: String, originalTransactionId: String, productId: String,
    environment: StoreEnvironment, signedAtMs: Int64?
  ) {
    self.appId = appId
    self.transactionId = transactionId
    self.originalTransactionId = originalTransactionId
    self.productId = productId
    self.environment = environment
    self.signedAtMs = signedAtMs
  }
}

extension StoreGateways {
  /// The configured gateways that can look up a customer order (the App Store's).
  public var orderLookups: [any OrderLookupGateway] { all.compactMap { $0 as? any OrderLookupGateway } }
}
