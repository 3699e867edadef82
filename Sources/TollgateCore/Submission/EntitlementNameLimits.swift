/// What an entitlement name in a request must be wherever one enters Tollgate: the service's
/// request validation (IsSubscriber) and the admin calls (Grant, Revoke, Explain) check the same
/// limits.
public enum EntitlementNameLimits {
  /// The longest entitlement name, in UTF-8 bytes.
  public static let maximumBytes = 128

  /// What is wrong with an entitlement name of `byteCount` UTF-8 bytes, in words a caller can act
  /// on, or nil.
  public static func problem(byteCount: Int) -> String? {
    if byteCount == 0 { return "entitlement is required" }
    if byteCount > maximumBytes { return "entitlement is longer than \(maximumBytes) bytes" }
    return nil
  }

  /// What is wrong with `entitlement`, or nil.
  public static func problem(_ entitlement: String) -> String? { problem(byteCount: entitlement.utf8.count) }
}
