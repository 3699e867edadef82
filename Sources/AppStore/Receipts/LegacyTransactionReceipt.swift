import TollgateCrypto

/// The iOS 6-era per-transaction receipt (`SKPaymentTransaction.transactionReceipt`): base64 of
/// an old-style property list `{ "purchase-info" = "<base64>"; "signature" = "…"; … }` whose
/// `purchase-info` is another such list holding `"transaction-id"`.
public enum LegacyTransactionReceipt {
  /// The `transaction-id` inside a base64 transaction receipt, or `nil`.
  public static func transactionId(fromBase64 receipt: String) -> String? {
    guard let outer = Base64.decode(receipt, ignoringWhitespace: true),
      let purchaseInfo = fields(String(decoding: outer, as: UTF8.self))["purchase-info"],
      let inner = Base64.decode(purchaseInfo, ignoringWhitespace: true)
    else { return nil }
    return fields(String(decoding: inner, as: UTF8.self))["transaction-id"]
  }

  /// The `"key" = "value";` pairs of an old-style property list (values without escapes).
  public static func fields(_ plist: String) -> [String: String] {
    var result: [String: String] = [:]
    var strings: [String] = []
    var current: String?
    var sawEquals = false
    for character in plist {
      if character == "\"", let string = current {
        strings.append(string)
        current = nil
        continue
      }
      if current != nil {
        // In place: a copy of the string per character made a long quoted string quadratic.
        current?.append(character)
        continue
      }
      switch character {
      case "\"": current = ""
      case "=": sawEquals = true
      case ";":
        if sawEquals, strings.count == 2 { result[strings[0]] = strings[1] }
        strings = []
        sawEquals = false
      default: continue
      }
    }
    return result
  }
}
