/// The Receipt Verification Service's decision for one `verifyReceiptId` request.
enum AmazonRVSOutcome: Sendable {
  case receipt(AmazonReceipt)
  /// 400: no such receipt (in this environment).
  case invalidReceipt
  /// 410: the purchase has been over for longer than `receiptRetentionMs`.
  case noLongerValid
  /// 496: the shared secret is not the app's.
  case invalidSharedSecret
  /// 497: the receipt belongs to another Amazon user.
  case invalidUserId
}

extension AmazonStore {
  /// RVS's checks in order: the shared secret (any non-empty one in the Cloud Sandbox unless
  /// `sandboxChecksSharedSecret`), the receipt in this environment (production answers
  /// production purchases, `/sandbox` test purchases), the user id that owns it, its age.
  func verify(sharedSecret: String, userId: String, receiptId: String, sandbox: Bool, nowMs: Int64)
    -> AmazonRVSOutcome
  {
    let checksSecret = !sandbox || config.sandboxChecksSharedSecret
    if checksSecret, !config.apps.contains(where: { $0.sharedSecret == sharedSecret }) { return .invalidSharedSecret }
    if sharedSecret.isEmpty { return .invalidSharedSecret }
    guard let receipt = receipts[receiptId], receipt.testTransaction == sandbox else { return .invalidReceipt }
    if checksSecret, config.app(receipt.appPackageName)?.sharedSecret != sharedSecret { return .invalidSharedSecret }
    guard receipt.userId == userId else { return .invalidUserId }
    if let ended = receipt.endedAtMs, nowMs - ended > config.receiptRetentionMs { return .noLongerValid }
    return .receipt(receipt)
  }
}
