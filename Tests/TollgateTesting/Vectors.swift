import Foundation

/// The public test vectors at `<repo>/../shared/vectors`, read in place and never copied.
public enum Vectors {
  /// `<repo>/../shared/vectors`, computed from this file's path (Tests/TollgateTesting/Vectors.swift).
  public static let directory: String = {
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return repo.appendingPathComponent("../shared/vectors").standardizedFileURL.path
  }()

  public static var isAvailable: Bool { FileManager.default.fileExists(atPath: directory + "/apple/roots") }

  /// Under `CI=true` the vectors must be there: CI never passes with its verification suites
  /// skipped.
  public static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

  /// Whether a test that reads the vectors runs: when they are there, and always under CI (where
  /// a missing file then fails it).
  public static var shouldRun: Bool { isAvailable || isRequired }

  public static let skipMessage =
    "public vectors not found at ../shared/vectors; skipping (under CI=true they are required)"

  public static func bytes(_ relativePath: String) throws -> [UInt8] {
    let path = directory + "/" + relativePath
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }
    return Array(data)
  }

  public static func string(_ relativePath: String) throws -> String {
    String(decoding: try bytes(relativePath), as: UTF8.self)
  }

  /// A vector file's text without surrounding whitespace (JWS files end with a newline).
  public static func trimmed(_ relativePath: String) throws -> String {
    try string(relativePath).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
