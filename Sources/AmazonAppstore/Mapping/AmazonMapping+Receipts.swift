import TollgateCore

extension AmazonMapping {
  /// Maps the receipts of one chain (one receipt, or a subscription's receipts across renewals and
  /// tier changes), read from RVS at `asOfMs`.
  ///
  /// - A SUBSCRIPTION receipt is one period from `purchaseDate` to `renewalDate` (or `cancelDate`
  ///   when Amazon gives no renewal date), named by its `receiptId` and its term SKU. A
  ///   `freeTrialEndDate` inside the term splits off a free-trial period before it (`{receiptId}#trial`);
  ///   one at or after the term's end makes the whole term a free trial. An `Active` introductory
  ///   price promotion makes the paid part an introductory offer.
  /// - The latest receipt gives the renewal info: `autoRenewing`, `cancelDate` + `cancelReason`,
  ///   `gracePeriodEndDate` (dropped when older than the purchase), `deferredSku` (once its
  ///   `deferredDate` has passed, the term renewed into that SKU on a new receipt: this one's
  ///   expiration intent is `replaced`). Core then reads
  ///   a past `cancelDate` inside the term as a cancellation (refund) at that time, and
  ///   `cancelReason` 4 as a replacement. A `cancelDate` still ahead cuts the term there instead.
  ///   An earlier receipt of the chain ends at its own `cancelDate`.
  /// - An ENTITLED receipt grants from `purchaseDate` for life (`Int64.max`), revoked at its
  ///   `cancelDate`.
  /// - A CONSUMABLE grants nothing lasting: no period.
  ///
  /// - Parameters:
  ///   - chainId: the chain's purchase id (its first receipt's id, see `AmazonReceiptChain`).
  ///   - environment: where the receipts were verified; a receipt with `testTransaction` makes
  ///     the chain sandbox too.
  public init(receipts: [RVSReceipt], chainId: String, environment: StoreEnvironment, asOfMs: Int64) {
    var notes: [AmazonMappingNote] = []
    if receipts.isEmpty { notes.append(.noReceipts) }
    let ordered = receipts.sorted { ($0.purchaseDate ?? .min) < ($1.purchaseDate ?? .min) }
    let latest = ordered.last
    var transactions: [StoreTransaction] = []
    for receipt in ordered {
      let receiptId = receipt.receiptId ?? chainId
      if !receipt.unreadableFields.isEmpty {
        notes.append(.unreadableFields(receiptId: receiptId, fields: receipt.unreadableFields))
      }
      let isLatest = receipt == latest
      transactions += Self.periods(
        of: receipt, receiptId: receiptId, isLatest: isLatest, asOfMs: asOfMs, notes: &notes)
    }
    let sandbox = environment == .sandbox || receipts.contains(where: \.isTestTransaction)
    let history = SubscriptionHistory(
      store: .amazon,
      purchaseId: chainId,
      environment: sandbox ? .sandbox : .production,
      transactions: transactions,
      renewalInfo: latest.flatMap { Self.renewalInfo(of: $0, asOfMs: asOfMs, notes: &notes) },
      parentProductId: latest?.parentProductId,
      asOfMs: asOfMs)
    self.init(history: history, userId: ordered.lazy.compactMap(\.userId).last, notes: notes)
  }

  /// Maps one receipt as its own chain (the chain id is its receipt id).
  public init(receipt: RVSReceipt, environment: StoreEnvironment, asOfMs: Int64) {
    self.init(receipts: [receipt], chainId: receipt.receiptId ?? "", environment: environment, asOfMs: asOfMs)
  }

  private static func periods(
    of receipt: RVSReceipt, receiptId: String, isLatest: Bool, asOfMs: Int64, notes: inout [AmazonMappingNote]
  ) -> [StoreTransaction] {
    let type = receipt.typedProductType
    if type == .consumable {
      notes.append(.consumable(receiptId: receiptId))
      return []
    }
    guard let type else {
      notes.append(.unknownProductType(receiptId: receiptId, productType: receipt.productType))
      return []
    }
    guard let start = receipt.purchaseDate else {
      notes.append(.withoutPurchaseDate(receiptId: receiptId))
      return []
    }
    guard let productId = receipt.periodProductId else {
      notes.append(.withoutProductId(receiptId: receiptId))
      return []
    }
    if type == .entitled {
      var owned = StoreTransaction(
        transactionId: receiptId, productId: productId, purchaseDateMs: start, expiresDateMs: .max)
      if let cancel = receipt.cancelDate {
        applyCancel(cancel, to: &owned, receiptId: receiptId, asOfMs: asOfMs, notes: &notes)
      }
      return [owned]
    }
    // A subscription term.
    guard var end = receipt.renewalDate ?? receipt.cancelDate else {
      notes.append(.subscriptionWithoutEnd(receiptId: receiptId))
      return []
    }
    if let cancel = receipt.cancelDate {
      if cancel <= start {
        notes.append(.cancelDateBeforePurchase(receiptId: receiptId))
      } else if cancel < end, cancel > asOfMs {
        notes.append(.cancelDateAhead(receiptId: receiptId, cancelDate: cancel))
        end = cancel
      } else if cancel < end, !isLatest {
        // An earlier receipt of the chain: Core reads only the latest receipt's cancelDate.
        if receipt.typedCancelReason == .tierChange { end = cancel }
      }
    }
    let intro = receipt.promotions?.contains {
      $0.typedPromotionType == .introductoryPrice && $0.typedPromotionStatus == .active
    }
    let paidOffer: (OfferType?, OfferDiscountType?) = intro == true ? (.introductory, .payAsYouGo) : (nil, nil)
    var periods: [StoreTransaction] = []
    if let trialEnd = receipt.freeTrialEndDate, trialEnd > start {
      let trialTo = min(trialEnd, end)
      periods.append(
        StoreTransaction(
          transactionId: trialTo < end ? "\(receiptId)#trial" : receiptId, productId: productId,
          purchaseDateMs: start, expiresDateMs: trialTo, offerType: .introductory, offerDiscountType: .freeTrial))
      if trialTo < end {
        periods.append(
          StoreTransaction(
            transactionId: receiptId, productId: productId, purchaseDateMs: trialTo, expiresDateMs: end,
            offerType: paidOffer.0, offerDiscountType: paidOffer.1))
      }
    } else {
      periods.append(
        StoreTransaction(
          transactionId: receiptId, productId: productId, purchaseDateMs: start, expiresDateMs: end,
          offerType: paidOffer.0, offerDiscountType: paidOffer.1))
    }
    if let cancel = receipt.cancelDate {
      // A tier change at the instant of purchase replaced the receipt before it began: not a refund.
      let revokeAll = cancel <= start && receipt.typedCancelReason != .tierChange
      let refundOlder = !isLatest && cancel < end && cancel <= asOfMs && receipt.typedCancelReason != .tierChange
      if revokeAll || refundOlder {
        for index in periods.indices where revokeAll || periods[index].purchaseDateMs <= cancel {
          if revokeAll || cancel < periods[index].expiresDateMs {
            periods[index].revocationDateMs = cancel
            periods[index].revocationReason = .refunded
          }
        }
      }
    }
    return periods
  }

  /// A non-consumable's `cancelDate`: revoked from then when it has passed, else owned until then.
  private static func applyCancel(
    _ cancel: Int64, to owned: inout StoreTransaction, receiptId: String, asOfMs: Int64,
    notes: inout [AmazonMappingNote]
  ) {
    if cancel > asOfMs, cancel > owned.purchaseDateMs {
      notes.append(.cancelDateAhead(receiptId: receiptId, cancelDate: cancel))
      owned.expiresDateMs = cancel
    } else {
      if cancel <= owned.purchaseDateMs { notes.append(.cancelDateBeforePurchase(receiptId: receiptId)) }
      owned.revocationDateMs = cancel
      owned.revocationReason = .refunded
    }
  }

  /// The latest receipt's renewal info; none for a non-consumable or a consumable.
  private static func renewalInfo(of receipt: RVSReceipt, asOfMs: Int64, notes: inout [AmazonMappingNote])
    -> RenewalInfo?
  {
    guard receipt.typedProductType == .subscription else { return nil }
    let receiptId = receipt.receiptId ?? ""
    var grace = receipt.gracePeriodEndDate
    if let value = grace, let start = receipt.purchaseDate, value < start {
      notes.append(.staleGracePeriodEndDate(receiptId: receiptId, gracePeriodEndDate: value))
      grace = nil
    }
    // A cancelDate still ahead was already cut into the term; a passed one (or one before the
    // purchase) is Core's to read.
    var cancel = receipt.cancelDate
    if let value = cancel, value > asOfMs, let start = receipt.purchaseDate, value > start,
      value < (receipt.renewalDate ?? .max)
    {
      cancel = nil
    }
    // A deferred change whose date has passed: the subscription renewed into `deferredSku` on a
    // new receipt (a chain of its own), and this receipt says so; its term ended by replacement,
    // not with a renewal still to be confirmed (which would be read again and again).
    let renewedIntoDeferredSku =
      receipt.cancelDate == nil && grace == nil && receipt.deferredSku != nil
      && receipt.deferredSku != receipt.periodProductId && (receipt.deferredDate ?? .max) <= asOfMs
    return RenewalInfo(
      willAutoRenew: (receipt.autoRenewing ?? false) && receipt.cancelDate == nil,
      autoRenewProductId: receipt.deferredSku,
      expirationIntent: receipt.typedCancelReason?.expirationIntent ?? (renewedIntoDeferredSku ? .replaced : nil),
      gracePeriodExpiresDateMs: grace,
      cancelDateMs: cancel)
  }
}
