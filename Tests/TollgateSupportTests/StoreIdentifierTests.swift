import Testing
import TollgateSupport

@Suite("StoreIdentifier: which kinds an identifier may be, from its shape")
struct StoreIdentifierTests {
  @Test("a GPA. id is a Google order id; digits are App Store transaction ids")
  func shapes() {
    #expect(StoreIdentifier.classify("GPA.3312-3456-7890-12345") == [.googlePlayOrderId])
    #expect(StoreIdentifier.classify("GPA.3312-3456-7890-12345..3") == [.googlePlayOrderId])
    #expect(
      StoreIdentifier.classify("2000000123456789") == [.appStoreTransactionId, .appStoreOriginalTransactionId])
  }

  @Test("an Apple order id's shape asks Apple first; tokens and receipts do not")
  func appleOrderIds() {
    #expect(StoreIdentifier.classify("MK5TTTVWJH").first == .appStoreOrderId)
    #expect(StoreIdentifier.looksLikeAppleOrderId("SIM1000"))
    #expect(!StoreIdentifier.looksLikeAppleOrderId("123456789"), "all digits: a transaction id")
    #expect(!StoreIdentifier.looksLikeAppleOrderId("MK5TTTVWJHMK5TTTVWJH"), "too long")
    #expect(!StoreIdentifier.looksLikeAppleOrderId("mk5tttvwjh"), "lower case")
    let token = "abcdefghijklmnopqrstuvwx.AO-J1OxyzXYZ0123456789-_"
    #expect(StoreIdentifier.classify(token) == [.googlePlayPurchaseToken, .amazonReceiptId, .amazonUserId])
    #expect(!StoreIdentifier.classify("q1YqVrJSSs7P-abc=:3:11#7").contains(.appStoreOrderId))
  }

  @Test("an empty, oversized or control-character identifier is refused with why")
  func problems() {
    #expect(StoreIdentifier.problem("") == "identifier is required")
    #expect(StoreIdentifier.problem(String(repeating: "a", count: 2_048)) == nil)
    #expect(StoreIdentifier.problem(String(repeating: "a", count: 2_049)) == "identifier is longer than 2048 bytes")
    #expect(StoreIdentifier.problem("abc\ndef") == "identifier holds a control character")
  }

  @Test("each kind names its store")
  func stores() {
    #expect(StoreIdentifierKind.allCases.count == 7)
    #expect(StoreIdentifierKind.appStoreOrderId.store == .appStore)
    #expect(StoreIdentifierKind.googlePlayOrderId.store == .googlePlay)
    #expect(StoreIdentifierKind.amazonUserId.store == .amazon)
  }
}
