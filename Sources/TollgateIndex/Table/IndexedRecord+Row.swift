import TollgateCore
import TollgateStorage

/// A snapshot's rows into records, read in place: no `String` for what is interned or numbered.
extension IndexedRecord {
  /// The record of `row`, as `init(_:strings:)` makes it from the row's `EntitlementRecord`.
  init(_ row: EntitlementRowView, strings: inout InternTable) {
    source = IndexedSource(row.source, strings: &strings)
    store = row.store
    state = row.state
    entitlement = strings.intern(row.entitlement)
    productId = strings.intern(row.productId)
    expiresAtMs = row.expiresAtMs
    accessEndsAtMs = row.accessEndsAtMs
    verifiedAtMs = row.verifiedAtMs
    reason = row.reason.flatMap { Self.reasonCodes[$0] } ?? 0
    environment = row.environment
    willRenew = row.willRenew
  }
}

extension IndexedSource {
  /// `init(_:strings:)` from the source's bytes: the same numbered sources, the same texts.
  init(_ source: UnsafeRawBufferPointer, strings: inout InternTable) {
    if let colon = source.firstIndex(of: UInt8(ascii: ":")) {
      let digits = UnsafeRawBufferPointer(rebasing: source[(colon + 1)...])
      // Only a canonical decimal (no sign, no leading zero, fits) round-trips through a number.
      if (1...19).contains(digits.count), digits[0] != UInt8(ascii: "0") || digits.count == 1,
        let number = Self.decimal(digits)
      {
        self = .numbered(prefix: strings.intern(UnsafeRawBufferPointer(rebasing: source[...colon])), number: number)
        return
      }
    }
    self = .text(String(decoding: source, as: UTF8.self))
  }

  /// The number spelled by `digits` (ASCII decimal digits only), or nil.
  private static func decimal(_ digits: UnsafeRawBufferPointer) -> UInt64? {
    var number: UInt64 = 0
    for byte in digits {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
      let (times10, overflow) = number.multipliedReportingOverflow(by: 10)
      let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflow, !carry else { return nil }
      number = sum
    }
    return number
  }
}
