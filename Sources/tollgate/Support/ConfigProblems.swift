import Foundation

/// A config file that cannot be used, with every problem found in it at once (each starting with
/// its key: `worker.listen: …`, `webhooks[0]: events: …`). `serve`, `worker` and
/// `tollgate config check` throw it; `Tollgate.main` prints it and exits `exitCode`.
///
/// The exit codes every command keeps (docs/configuration.md#exit-codes): 0 done, 1 a failure
/// while running (or "no" from a query), 2 bad usage (flags), 78 a bad config file (`EX_CONFIG` of
/// sysexits.h: a unit can stop restarting on it with `RestartPreventExitStatus=78`).
struct ConfigProblems: Error, CustomStringConvertible {
  /// `EX_CONFIG`.
  static let exitCode: Int32 = 78

  /// The file, when the problems are in one.
  var path: String?
  var problems: [String]

  init(path: String?, problems: [String]) {
    self.path = path
    self.problems = problems
  }

  init(path: String?, problem: String) {
    self.init(path: path, problems: [problem])
  }

  var description: String {
    let head = path.map { "config file \($0): invalid configuration" } ?? "invalid configuration"
    return ([head + ":"] + problems.map { "  - \($0)" }).joined(separator: "\n")
  }

  /// Throws the problems, if there are any.
  static func check(_ problems: [String], path: String?) throws(ConfigProblems) {
    guard problems.isEmpty else { throw ConfigProblems(path: path, problems: problems) }
  }
}
