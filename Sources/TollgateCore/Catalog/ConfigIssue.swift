/// One problem found in a `ProductCatalog`.
public struct ConfigIssue: Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem; compare against the static members.
  public var code: Code
  /// A human-readable explanation naming the offending value.
  public var message: String
  /// Where in the configuration, e.g. `products[2].entitlements`.
  public var path: String

  public init(code: Code, message: String, path: String) {
    self.code = code
    self.message = message
    self.path = path
  }

  public var description: String { "\(path): \(message) [\(code)]" }

  /// An opaque issue code: new codes can be added without breaking callers.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private var name: String
    private init(_ name: String) { self.name = name }
    public var description: String { name }

    public static let emptyIdentifier = Code("empty_identifier")
    public static let duplicateAppId = Code("duplicate_app_id")
    public static let duplicateStoreAppId = Code("duplicate_store_app_id")
    public static let missingStoreAppId = Code("missing_store_app_id")
    public static let unsupportedStore = Code("unsupported_store")
    public static let duplicateEntitlement = Code("duplicate_entitlement")
    public static let duplicateProduct = Code("duplicate_product")
    public static let productWithoutEntitlements = Code("product_without_entitlements")
    public static let unknownEntitlement = Code("unknown_entitlement")
    public static let duplicateGroupId = Code("duplicate_group_id")
    public static let productInTwoGroups = Code("product_in_two_groups")
    public static let unknownProduct = Code("unknown_product")
    public static let invalidLevel = Code("invalid_level")
    public static let negativeDuration = Code("negative_duration")
  }
}

/// Thrown by `ProductCatalog.validated()`: every problem found, not just the first.
public struct ConfigValidationError: Error, Sendable, Hashable, CustomStringConvertible {
  public var issues: [ConfigIssue]

  public init(issues: [ConfigIssue]) { self.issues = issues }

  public var description: String {
    "invalid configuration (\(issues.count) problem\(issues.count == 1 ? "" : "s")):\n"
      + issues.map { "  - \($0)" }.joined(separator: "\n")
  }
}
