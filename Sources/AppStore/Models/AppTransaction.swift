/// A verified app transaction (`AppTransaction`), Apple's names.
public struct AppTransaction: Sendable, Hashable, Decodable {
  /// Raw `receiptType`: Production, Sandbox, Xcode, LocalTesting.
  public var receiptType: String?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var applicationVersion: String?
  public var versionExternalIdentifier: Int64?
  @Milliseconds public var receiptCreationDate: Int64?
  /// When the App Store signed this app transaction.
  @Milliseconds public var signedDate: Int64?
  @Milliseconds public var originalPurchaseDate: Int64?
  public var originalApplicationVersion: String?
  public var deviceVerification: String?
  public var deviceVerificationNonce: String?
  @Milliseconds public var preorderDate: Int64?
  public var appTransactionId: String?
  public var originalPlatform: String?

  public init() {}

  public var typedReceiptType: AppStoreEnvironment? { receiptType.flatMap(AppStoreEnvironment.init(rawValue:)) }
}
