import ArgumentParser
import Foundation
import TollgateCallers
import TollgateServer
import TollgateService

/// `tollgate callers new NAME --scopes read,submit`: a new caller key and its config entry.
struct Callers: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Make keys for the service's callers.", subcommands: [New.self])

  struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print a new random key for a caller and the entry that admits it.",
      discussion: """
        Give the key to the caller (its client sends it in Authenticate); put the entry in \
        service.callers or in the file service.callersFile names (reloaded without a restart). \
        Only the key's SHA-256 is configured: a lost key is replaced, never recovered.
        """)

    @Argument(help: "The caller's name (what it authenticates as, and what logs show).")
    var name: String

    @Option(
      help:
        "Comma-separated scopes: read (IsSubscriber, GetSubscription, Health), submit (SubmitPurchase, GetSubmission), admin."
    )
    var scopes: String = "read"

    func run() throws {
      let names = scopes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      guard case .success(let parsed) = CallerScopes.parse(names), !parsed.isEmpty else {
        throw ValidationError("--scopes must list read, submit or admin, separated by commas")
      }
      var generator = SystemRandomNumberGenerator()
      let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
      let key =
        "tgk_"
        + Data(secret).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      let entry = CallerList.Entry(
        name: name, keySha256: CallerKey.digest(of: key).map { String(format: "%02x", $0) }.joined(),
        scopes: parsed.names)
      do {
        _ = try CallerList.keys([entry], source: "caller")
      } catch {
        throw ValidationError("\(error)")
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print("key: \(key)")
      print("entry: \(String(decoding: try encoder.encode(entry), as: UTF8.self))")
    }
  }
}
