/// A value bound to or read from SQLite.
public enum DatabaseValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

extension DatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
  public init(stringLiteral value: String) { self = .text(value) }
  public init(integerLiteral value: Int64) { self = .integer(value) }
  public init(nilLiteral: ()) { self = .null }
}

extension DatabaseValue {
  public init(_ value: String?) { self = value.map(DatabaseValue.text) ?? .null }
  public init(_ value: Int64?) { self = value.map(DatabaseValue.integer) ?? .null }
  public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
