/// Text a stranger sent (a caller name, a header, an id nobody checked yet), as a log line may
/// hold it: at most `limit` Unicode scalars, each one outside printable ASCII escaped as Swift
/// writes it (`\n`, `\u{1B}`, `\u{202E}`), quotes and backslashes too. So it can neither end the
/// line and start a forged one nor hide in a terminal, and a megabyte costs the log 64 characters.
/// What was cut is said by its size in bytes.
public enum StrangerText {
  public static func loggable(_ text: some StringProtocol, limit: Int = 64) -> String {
    var kept = 0
    var keptBytes = 0
    var escaped = ""
    for scalar in text.unicodeScalars {
      guard kept < limit else { break }
      escaped += scalar.escaped(asASCII: true)
      kept += 1
      keptBytes += UTF8.width(scalar)
    }
    let total = text.utf8.count
    return total > keptBytes ? "\(escaped)…(\(total) bytes)" : escaped
  }
}
