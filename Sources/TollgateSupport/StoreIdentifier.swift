import TollgateCore

/// What kind of store identifier a support engineer holds (the proto's `IdentifierKind` without
/// its unspecified value): what LookUp searches for it.
public enum StoreIdentifierKind: String, Sendable, Hashable, CaseIterable {
  /// An App Store `transactionId`: one period of a chain.
  case appStoreTransactionId = "app_store_transaction_id"
  /// An App Store `originalTransactionId`: the chain itself.
  case appStoreOriginalTransactionId = "app_store_original_transaction_id"
  /// The order id on the customer's App Store receipt e-mail: Tollgate never stores it (Apple's
  /// signed transactions do not carry it), so it is asked of the App Store Server API.
  case appStoreOrderId = "app_store_order_id"
  /// A Google Play purchase token: the chain.
  case googlePlayPurchaseToken = "google_play_purchase_token"
  /// A Google Play order id, `GPA.…`, the first order's or a renewal's (`..N`): the whole chain.
  case googlePlayOrderId = "google_play_order_id"
  /// An Amazon receipt id: the chain.
  case amazonReceiptId = "amazon_receipt_id"
  /// An Amazon user id: every chain that buyer holds.
  case amazonUserId = "amazon_user_id"

  /// The store the kind belongs to.
  public var store: Store {
    switch self {
    case .appStoreTransactionId, .appStoreOriginalTransactionId, .appStoreOrderId: .appStore
    case .googlePlayPurchaseToken, .googlePlayOrderId: .googlePlay
    case .amazonReceiptId, .amazonUserId: .amazon
    }
  }
}

/// Guesses which kinds an identifier may be from its shape, so a lookup without a kind searches
/// where it can be, and asks Apple about an order id only when it looks like one.
public enum StoreIdentifier {
  /// The longest identifier LookUp takes, in UTF-8 bytes (a Google purchase token is about 160
  /// bytes, an Amazon receipt id about 60).
  public static let maximumBytes = 2_048

  /// What is wrong with `identifier` as a LookUp's, in words a caller can act on, or nil.
  public static func problem(_ identifier: String) -> String? {
    let count = identifier.utf8.count
    if count == 0 { return "identifier is required" }
    if count > maximumBytes { return "identifier is longer than \(maximumBytes) bytes" }
    if identifier.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      return "identifier holds a control character"
    }
    return nil
  }

  /// The kinds `identifier` may be, most likely first; never empty for a valid identifier:
  /// - `GPA.` then anything: a Google Play order id (no other store's ids start so);
  /// - only ASCII digits: an App Store transaction or original transaction id;
  /// - 6 to 16 upper-case letters and digits with at least one letter: an App Store order id
  ///   (Apple's look like `MK5TTTVWJH`), then the other stores' kinds;
  /// - anything else: a Google purchase token, an Amazon receipt id or an Amazon user id.
  public static func classify(_ identifier: String) -> [StoreIdentifierKind] {
    if identifier.hasPrefix("GPA.") { return [.googlePlayOrderId] }
    if !identifier.isEmpty, identifier.utf8.allSatisfy(isDigit) {
      return [.appStoreTransactionId, .appStoreOriginalTransactionId]
    }
    let others: [StoreIdentifierKind] = [.googlePlayPurchaseToken, .amazonReceiptId, .amazonUserId]
    return looksLikeAppleOrderId(identifier) ? [.appStoreOrderId] + others : others
  }

  /// Whether `identifier` has the shape of an App Store order id (6 to 16 upper-case ASCII
  /// letters and digits, at least one a letter).
  public static func looksLikeAppleOrderId(_ identifier: String) -> Bool {
    let bytes = identifier.utf8
    return (6...16).contains(bytes.count) && bytes.allSatisfy { isDigit($0) || isUpperLetter($0) }
      && bytes.contains(where: isUpperLetter)
  }

  private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
  private static func isUpperLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
}
