/// A Google Play `orderId`, split into the order it started as and its renewal number.
///
/// Google Play gives the first order of a subscription an id like `GPA.1234-5678-9012-34567` and
/// each renewal the same id with `..0`, `..1`, … appended.
public struct GooglePlayOrderId: Sendable, Hashable, Codable {
  /// The id of the first order, without the renewal suffix.
  public var baseOrderId: String
  /// `nil` for the first order, `N` for the order ending in `..N`.
  public var renewalIndex: Int?

  public init(baseOrderId: String, renewalIndex: Int?) {
    self.baseOrderId = baseOrderId
    self.renewalIndex = renewalIndex
  }

  /// Splits an order id; an id without a well-formed `..N` suffix is a first order.
  public init(_ orderId: String) {
    let characters = Array(orderId)
    var separator: Int?
    var index = characters.count - 2
    while index >= 1 {
      if characters[index] == "." && characters[index + 1] == "." {
        separator = index
        break
      }
      index -= 1
    }
    if let separator {
      let suffix = String(characters[(separator + 2)...])
      if !suffix.isEmpty, suffix.allSatisfy(\.isASCII), suffix.allSatisfy(\.isNumber),
        let renewal = Int(suffix)
      {
        self.init(baseOrderId: String(characters[..<separator]), renewalIndex: renewal)
        return
      }
    }
    self.init(baseOrderId: orderId, renewalIndex: nil)
  }

  /// The order id as Google Play writes it.
  public var orderId: String {
    guard let renewalIndex else { return baseOrderId }
    return "\(baseOrderId)..\(renewalIndex)"
  }

  /// Position in the chain: 0 for the first order, `N + 1` for the renewal `..N`.
  public var sequenceNumber: Int { renewalIndex.map { $0 + 1 } ?? 0 }
}

extension GooglePlayOrderId {
  /// The first order's id behind a Google Play transaction id as Tollgate stores it (`GPA.x`,
  /// `GPA.x..N`, `GPA.x|productId` for one line item of an order, `GPA.x..N|productId`): the part
  /// before `|`, without its renewal suffix. Nil for an id that is not an order id (`GPA.…`), such
  /// as `purchaseToken|productId`, stored for a purchase Google gave no order id.
  public static func base(ofStoredTransactionId id: String) -> String? {
    guard id.hasPrefix("GPA.") else { return nil }
    let order = id.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? id
    return GooglePlayOrderId(order).baseOrderId
  }
}
