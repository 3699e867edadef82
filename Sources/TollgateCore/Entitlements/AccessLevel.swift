/// How much of the app a user may use: `full`, `none`, or an operator-defined level such as
/// `read_only`.
public struct AccessLevel: RawRepresentable, Sendable, Hashable, Codable, Comparable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  public var rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }

  public init(from decoder: any Decoder) throws {
    self.rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  /// Everything the entitlement unlocks.
  public static let full: AccessLevel = "full"
  /// Nothing.
  public static let none: AccessLevel = "none"

  public var description: String { rawValue }

  /// Orders by name only, so results are deterministic; it says nothing about which level is more.
  public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The access level each subscription state grants. Defaults: trial, intro offer, active and
/// grace period grant `full`; billing retry, on hold, paused, expired and revoked grant `none`.
public struct AccessLevelPolicy: Sendable, Hashable, Codable {
  /// Overrides per state; a state left out takes its default.
  public var levels: [SubscriptionState: AccessLevel]

  public init(levels: [SubscriptionState: AccessLevel] = [:]) {
    self.levels = levels
  }

  public static var defaults: AccessLevelPolicy { AccessLevelPolicy() }

  /// The level granted in `state`.
  public func level(for state: SubscriptionState) -> AccessLevel {
    levels[state] ?? Self.defaultLevel(for: state)
  }

  /// The level granted in `state` when nothing is configured.
  public static func defaultLevel(for state: SubscriptionState) -> AccessLevel {
    state.isEntitledByDefault ? .full : .none
  }

  /// The level granted by an evaluated record: its state's level, and `none` for an entitled
  /// state whose access has ended (the evaluation reads it as `expired`).
  public func level(for evaluation: EvaluatedEntitlement) -> AccessLevel {
    level(for: evaluation.state)
  }

  public init(from decoder: any Decoder) throws {
    let raw = try decoder.singleValueContainer().decode([String: AccessLevel].self)
    var levels: [SubscriptionState: AccessLevel] = [:]
    var unknown: [String] = []
    for (key, level) in raw {
      guard let state = SubscriptionState(rawValue: key) else {
        unknown.append("'\(key)'")
        continue
      }
      levels[state] = level
    }
    // Every unknown state at once, with the ones there are.
    guard unknown.isEmpty else {
      let known = SubscriptionState.allCases.map(\.rawValue).joined(separator: ", ")
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "unknown subscription state\(unknown.count == 1 ? "" : "s") \(unknown.sorted().joined(separator: ", ")) "
            + "(known: \(known))"))
    }
    self.levels = levels
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(Dictionary(uniqueKeysWithValues: levels.map { ($0.key.rawValue, $0.value) }))
  }
}
