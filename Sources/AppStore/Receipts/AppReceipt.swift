import Foundation
import TollgateCrypto

/// The payload of a local (unified) app receipt: the ASN.1 set inside the PKCS#7 envelope.
/// Enough to resolve an old client's receipt through the App Store Server API.
public struct AppReceipt: Sendable, Hashable {
  /// Attribute 0: "Production", "ProductionSandbox", "Xcode"….
  public var receiptType: String?
  /// Attribute 2.
  public var bundleId: String?
  /// Attribute 3.
  public var applicationVersion: String?
  /// Attribute 19.
  public var originalApplicationVersion: String?
  /// Attribute 12, ms.
  public var creationDateMs: Int64?
  /// Attribute 21, ms.
  public var expirationDateMs: Int64?
  /// Attribute 17 entries.
  public var inAppPurchases: [InAppPurchase]

  public struct InAppPurchase: Sendable, Hashable {
    /// 1701.
    public var quantity: Int64?
    /// 1702.
    public var productId: String?
    /// 1703.
    public var transactionId: String?
    /// 1705.
    public var originalTransactionId: String?
    /// 1704, ms.
    public var purchaseDateMs: Int64?
    /// 1706, ms.
    public var originalPurchaseDateMs: Int64?
    /// 1708, ms.
    public var expiresDateMs: Int64?
    /// 1711.
    public var webOrderLineItemId: Int64?
    /// 1712, ms.
    public var cancellationDateMs: Int64?
    /// 1719.
    public var isInIntroOfferPeriod: Bool?
  }

  /// The id to look the customer up with in the App Store Server API: the first in-app
  /// transaction's original id (else its transaction id); `nil` without in-app entries.
  public var transactionIdForLookup: String? {
    inAppPurchases.first.flatMap { $0.originalTransactionId ?? $0.transactionId }
  }

  /// Parses the ASN.1 payload (the PKCS#7 content).
  public init?(payload: [UInt8]) {
    guard let attributes = DERReader.attributes(payload[...]) else { return nil }
    inAppPurchases = []
    for (type, value) in attributes {
      switch type {
      case 0: receiptType = DERReader.string(value)
      case 2: bundleId = DERReader.string(value)
      case 3: applicationVersion = DERReader.string(value)
      case 12: creationDateMs = DERReader.string(value).flatMap(LegacyJSON.parseGMT)
      case 17: if let purchase = InAppPurchase(value) { inAppPurchases.append(purchase) }
      case 19: originalApplicationVersion = DERReader.string(value)
      case 21: expirationDateMs = DERReader.string(value).flatMap(LegacyJSON.parseGMT)
      default: continue
      }
    }
  }
}

extension AppReceipt.InAppPurchase {
  init?(_ encoded: ArraySlice<UInt8>) {
    guard let attributes = DERReader.attributes(encoded) else { return nil }
    for (type, value) in attributes {
      switch type {
      case 1701: quantity = DERReader.integerAttribute(value)
      case 1702: productId = DERReader.string(value)
      case 1703: transactionId = DERReader.string(value)
      case 1704: purchaseDateMs = DERReader.string(value).flatMap(LegacyJSON.parseGMT)
      case 1705: originalTransactionId = DERReader.string(value)
      case 1706: originalPurchaseDateMs = DERReader.string(value).flatMap(LegacyJSON.parseGMT)
      case 1708: expiresDateMs = DERReader.string(value).flatMap(LegacyJSON.parseGMT)
      case 1711: webOrderLineItemId = DERReader.integerAttribute(value)
      case 1712: cancellationDateMs = DERReader.string(value).flatMap(LegacyJSON.parseGMT)
      case 1719: isInIntroOfferPeriod = DERReader.integerAttribute(value).map { $0 != 0 }
      default: continue
      }
    }
  }
}
