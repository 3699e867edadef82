import AppStore
import Testing
import TollgateCrypto

@Suite("Legacy transaction receipts (iOS 6 property lists)")
struct LegacyTransactionReceiptTests {
  @Test func readsThePairs() {
    let plist = #"{ "purchase-info" = "abc"; "signature" = "def"; "pod" = "100"; }"#
    #expect(LegacyTransactionReceipt.fields(plist) == ["purchase-info": "abc", "signature": "def", "pod": "100"])
  }

  /// Found by scripts/fuzz (apple-receipt): each character of a quoted string copied the string,
  /// so a receipt whose bytes held one long quoted run took quadratic time (and memory churn);
  /// 4 MB took hours. Now linear.
  @Test(.timeLimit(.minutes(1)))
  func aLongQuotedStringIsLinear() {
    let value = String(repeating: "a", count: 4_000_000)
    #expect(LegacyTransactionReceipt.fields("{ \"key\" = \"\(value)\"; }")["key"]?.count == value.count)
    let receipt = Base64.encode(Array("{ \"purchase-info\" = \"\(value)".utf8))
    #expect(LegacyTransactionReceipt.transactionId(fromBase64: receipt) == nil)
  }
}
