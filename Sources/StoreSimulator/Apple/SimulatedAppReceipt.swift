import TollgateCrypto

/// A unified app receipt as a device holds it: Apple's ASN.1 receipt set (bundle id, version,
/// creation date, in-app purchases) in a PKCS#7 SignedData. The simulator signs one with its
/// receipt-signing leaf (Apple's marker OID 1.2.840.113635.100.6.11.1) for every purchase;
/// tests forge others with other certificates.
public struct SimulatedAppReceipt: Sendable, Hashable {
  public struct Purchase: Sendable, Hashable {
    public var productId: String
    public var transactionId: String
    public var originalTransactionId: String
    public var purchaseDateMs: Int64
    public var expiresDateMs: Int64?

    public init(
      productId: String, transactionId: String, originalTransactionId: String, purchaseDateMs: Int64,
      expiresDateMs: Int64?
    ) {
      self.productId = productId
      self.transactionId = transactionId
      self.originalTransactionId = originalTransactionId
      self.purchaseDateMs = purchaseDateMs
      self.expiresDateMs = expiresDateMs
    }
  }

  /// "Production" or "ProductionSandbox".
  public var receiptType: String
  public var bundleId: String
  public var applicationVersion: String
  public var creationDateMs: Int64
  public var purchases: [Purchase]

  public init(
    receiptType: String, bundleId: String, applicationVersion: String = "1", creationDateMs: Int64,
    purchases: [Purchase]
  ) {
    self.receiptType = receiptType
    self.bundleId = bundleId
    self.applicationVersion = applicationVersion
    self.creationDateMs = creationDateMs
    self.purchases = purchases
  }

  /// The DER receipt set, as the PKCS#7 content.
  public var payload: [UInt8] {
    var attributes = [
      Self.attribute(0, Self.utf8(receiptType)), Self.attribute(2, Self.utf8(bundleId)),
      Self.attribute(3, Self.utf8(applicationVersion)), Self.attribute(12, Self.date(creationDateMs)),
    ]
    for purchase in purchases {
      var fields = [
        Self.attribute(1701, Self.integer(1)), Self.attribute(1702, Self.utf8(purchase.productId)),
        Self.attribute(1703, Self.utf8(purchase.transactionId)),
        Self.attribute(1704, Self.date(purchase.purchaseDateMs)),
        Self.attribute(1705, Self.utf8(purchase.originalTransactionId)),
      ]
      if let expires = purchase.expiresDateMs, expires != Int64.max {
        fields.append(Self.attribute(1708, Self.date(expires)))
      }
      attributes.append(Self.attribute(17, Self.set(fields)))
    }
    return Self.set(attributes)
  }

  /// Base64 of the receipt signed by `signer` (with `key`), embedding `chain` above it: what
  /// `Bundle.main.appStoreReceiptURL` holds.
  public func signed(by signer: Certificate, key: P256PrivateKey, chain: [Certificate]) throws(CryptoError) -> String {
    Base64.encode(try PKCS7.sign(payload, signer: signer, key: key, chain: chain))
  }

  // MARK: DER

  private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8] = []
    if content.count < 0x80 {
      length = [UInt8(content.count)]
    } else {
      var count = content.count
      while count > 0 {
        length.insert(UInt8(count & 0xFF), at: 0)
        count >>= 8
      }
      length.insert(0x80 | UInt8(length.count), at: 0)
    }
    return [tag] + length + content
  }

  private static func integer(_ value: Int64) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = value
    repeat {
      bytes.insert(UInt8(rest & 0xFF), at: 0)
      rest >>= 8
    } while rest > 0
    if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return tlv(0x02, bytes)
  }

  private static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }

  /// An IA5String date, as Apple writes them: 2023-10-19T01:18:54Z.
  private static func date(_ ms: Int64) -> [UInt8] {
    let t = CivilTime(ms: ms)
    let pad = CivilTime.pad
    let text =
      "\(t.year)-\(pad(t.month, 2))-\(pad(t.day, 2))T\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))Z"
    return tlv(0x16, Array(text.utf8))
  }

  /// SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }.
  private static func attribute(_ type: Int64, _ value: [UInt8]) -> [UInt8] {
    tlv(0x30, integer(type) + integer(1) + tlv(0x04, value))
  }

  /// A SET OF, its elements in the order given (as Apple's receipts: the first in-app entry is the
  /// one a receipt is looked up by).
  private static func set(_ elements: [[UInt8]]) -> [UInt8] { tlv(0x31, elements.flatMap { $0 }) }
}
