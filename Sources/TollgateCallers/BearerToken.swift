/// The caller key in an `authorization` value (gRPC metadata, an HTTP header):
/// `Bearer <key>` (RFC 6750), the scheme in any case, one space or more before the key.
public enum BearerToken {
  /// Longer keys are refused unread (`tollgate callers new` makes keys of about 50 characters).
  public static let maximumKeyBytes = 512

  /// The key, or nil when `value` is missing, names another scheme, has an empty key, a key with
  /// a space or tab inside, or one longer than `maximumKeyBytes`. Spaces and tabs around the
  /// whole value are ignored (HTTP trims them too).
  public static func key(fromAuthorization value: String?) -> Substring? {
    guard let value else { return nil }
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    var text = Substring(value)
    while let first = text.first, blank(first) { text.removeFirst() }
    while let last = text.last, blank(last) { text.removeLast() }
    let scheme = "bearer"
    guard text.prefix(scheme.count).lowercased() == scheme else { return nil }
    let rest = text.dropFirst(scheme.count)
    guard let first = rest.first, first == " " else { return nil }
    let key = rest.drop(while: blank)
    guard !key.isEmpty, key.utf8.count <= maximumKeyBytes, !key.contains(where: blank) else { return nil }
    return key
  }
}
