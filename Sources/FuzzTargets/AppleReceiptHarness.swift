import AppStore
import Foundation
import TollgateCrypto

/// Input: a legacy app receipt, base64 (as apps send it) or DER. Its PKCS#7 signature is checked
/// against the fuzz roots at the receipt's creation date, its payload read by the DER reader.
enum AppleReceiptHarness {
  static func run(_ bytes: [UInt8]) {
    let verifier = AppleFixtures.receiptVerifier
    _ = verifier.verify(der: bytes)
    _ = AppReceiptVerifier.parseUnverified(der: bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    if let der = Base64.decode(text, ignoringWhitespace: true) {
      _ = verifier.verify(der: der)
      if let receipt = AppReceiptVerifier.parseUnverified(der: der) {
        _ = receipt.transactionIdForLookup
      }
    }
    _ = LegacyTransactionReceipt.transactionId(fromBase64: text)
    _ = LegacyTransactionReceipt.fields(text)
  }
}
