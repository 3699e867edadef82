/// An HTTP `Retry-After` value as milliseconds, for the stores' APIs: delta-seconds only (neither
/// Apple nor Google sends an HTTP date); nil for anything else.
public enum RetryAfter {
  public static func milliseconds(_ value: String) -> Int64? {
    var text = Substring(value)
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    guard let seconds = Int64(text), seconds >= 0, seconds <= Int64.max / 1_000 else { return nil }
    return seconds * 1_000
  }
}
