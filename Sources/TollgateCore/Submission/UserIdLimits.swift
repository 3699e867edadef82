/// What a user id must be wherever one enters Tollgate: the service's request validation and the
/// operator's admin commands check the same limits.
public enum UserIdLimits {
  /// The longest user id, in UTF-8 bytes.
  public static let maximumBytes = 256

  /// What is wrong with a user id of `byteCount` UTF-8 bytes, in words a caller can act on, or nil.
  public static func problem(byteCount: Int) -> String? {
    if byteCount == 0 { return "user_id is required" }
    if byteCount > maximumBytes { return "user_id is longer than \(maximumBytes) bytes" }
    return nil
  }

  /// What is wrong with `userId`, or nil.
  public static func problem(_ userId: String) -> String? { problem(byteCount: userId.utf8.count) }
}
