#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads the hex golden frames under `proto/testdata/`.
public enum GoldenFrames {
  public static var directory: String {
    // Tests/TollgateTesting/GoldenFrames.swift → repo root.
    let here = #filePath
    var parts = here.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/proto/testdata"
  }

  /// The bytes of `name` (e.g. `request-health.hex`).
  public static func bytes(_ name: String) throws -> [UInt8] {
    let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    var hex = ""
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      hex += line.filter { !$0.isWhitespace }
    }
    precondition(hex.count.isMultiple(of: 2), "odd hex digit count in \(name)")
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return bytes
  }
}
