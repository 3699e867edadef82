/// Google's `Money`: a currency, whole `units` (an int64 written as a JSON string) and `nanos`
/// (billionths of a unit, the same sign as `units`).
public struct Money: Sendable, Hashable, Decodable {
  /// ISO 4217 code, e.g. "USD".
  public var currencyCode: String?
  /// Whole units, as Google writes them (a string); a number is accepted too.
  public var units: String?
  public var nanos: Int?

  public init(currencyCode: String? = nil, units: String? = nil, nanos: Int? = nil) {
    self.currencyCode = currencyCode
    self.units = units
    self.nanos = nanos
  }

  private enum CodingKeys: String, CodingKey {
    case currencyCode, units, nanos
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    currencyCode = try container.decodeIfPresent(String.self, forKey: .currencyCode)
    if let number = try? container.decodeIfPresent(Int64.self, forKey: .units) {
      units = String(number)
    } else {
      units = try container.decodeIfPresent(String.self, forKey: .units)
    }
    nanos = try container.decodeIfPresent(Int.self, forKey: .nanos)
  }

  /// The amount in micro-units (1/1,000,000), exact; `nil` when `units` is not an integer or the
  /// amount overflows.
  public var amountMicros: Int64? {
    guard let whole = Int64(units ?? "0") else { return nil }
    let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000)
    guard !overflow else { return nil }
    return scaled + Int64((nanos ?? 0) / 1_000)
  }
}
