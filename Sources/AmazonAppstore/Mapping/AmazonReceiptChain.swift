/// Receipts that belong to one purchase chain. Amazon keys its data by receipt: a subscription's
/// renewals (where Amazon issues a new receipt per term) and its tier changes are related receipts
/// of the same user under the same `parentProductId`. `explain` and `GetSubscription` show them
/// as one chain.
public struct AmazonReceiptChain: Sendable, Hashable {
  /// The chain's purchase id: the receipt id of its first purchase.
  public var chainId: String
  /// The receipts, earliest purchase first.
  public var receipts: [RVSReceipt]

  public init(chainId: String, receipts: [RVSReceipt]) {
    self.chainId = chainId
    self.receipts = receipts
  }

  /// Groups `receipts` into chains: subscription receipts of the same user (`userId`, absent
  /// counts as one user) under the same `parentProductId` (or, without one, the same `productId`)
  /// form one chain; every other receipt is a chain of its own. Receipts without a `receiptId`
  /// are left out. Chains come in order of their first purchase.
  public static func group(_ receipts: [RVSReceipt]) -> [AmazonReceiptChain] {
    struct Key: Hashable {
      var userId: String?
      var family: String
    }
    var families: [Key: [RVSReceipt]] = [:]
    var chains: [AmazonReceiptChain] = []
    for receipt in receipts {
      guard let receiptId = receipt.receiptId else { continue }
      if receipt.typedProductType == .subscription, let family = receipt.parentProductId ?? receipt.productId {
        families[Key(userId: receipt.userId, family: family), default: []].append(receipt)
      } else {
        chains.append(AmazonReceiptChain(chainId: receiptId, receipts: [receipt]))
      }
    }
    for members in families.values {
      let ordered = members.sorted(by: earlier)
      chains.append(AmazonReceiptChain(chainId: ordered[0].receiptId ?? "", receipts: ordered))
    }
    return chains.sorted { lhs, rhs in earlier(lhs.receipts[0], rhs.receipts[0]) }
  }

  /// Purchase order, receipt id to break ties (a stable order for equal or missing dates).
  private static func earlier(_ lhs: RVSReceipt, _ rhs: RVSReceipt) -> Bool {
    (lhs.purchaseDate ?? .min, lhs.receiptId ?? "") < (rhs.purchaseDate ?? .min, rhs.receiptId ?? "")
  }
}
