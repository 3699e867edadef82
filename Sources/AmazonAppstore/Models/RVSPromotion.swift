/// One element of a receipt's `promotions`: an introductory price or a free trial, and whether it
/// applies now (`Active`) or to a later term (`Queued`).
public struct RVSPromotion: Sendable, Hashable, Decodable {
  /// Raw `promotionType`, e.g. "Introductory Price - All Customers", "Free Trial".
  public var promotionType: String?
  /// Raw `promotionStatus`, e.g. "Queued", "Active".
  public var promotionStatus: String?

  public init(promotionType: String? = nil, promotionStatus: String? = nil) {
    self.promotionType = promotionType
    self.promotionStatus = promotionStatus
  }

  public init(from decoder: any Decoder) throws {
    var object = try LenientObject(from: decoder)
    promotionType = object.string("promotionType")
    promotionStatus = object.string("promotionStatus")
  }

  public var typedPromotionType: Kind? {
    guard let text = promotionType?.lowercased() else { return nil }
    if text.contains("introductory") { return .introductoryPrice }
    if text.contains("free trial") || text.contains("freetrial") { return .freeTrial }
    return nil
  }

  public var typedPromotionStatus: Status? {
    promotionStatus.flatMap { Status(rawValue: $0.lowercased()) }
  }

  /// What the promotion gives.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case introductoryPrice = "introductory_price"
    case freeTrial = "free_trial"
  }

  /// Whether the promotion applies to the current term.
  public enum Status: String, Sendable, Hashable, CaseIterable {
    /// It applies to a later term (after a free trial, say).
    case queued
    /// It applies to the current term.
    case active
    /// It applied to earlier terms.
    case ended
  }
}
