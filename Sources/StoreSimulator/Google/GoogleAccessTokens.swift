import Foundation
import Synchronization

/// The OAuth access tokens the simulated token endpoint issued, each valid for an hour of REAL
/// time (a worker that does not follow the virtual clock keeps its token across advances; one
/// that does simply asks for new tokens sooner).
final class GoogleAccessTokens: Sendable {
  static let lifetimeSeconds: Int64 = 3_600
  private let issued = Mutex<[String: Int64]>([:])

  /// A new token (`ya29.` and 150 base64url characters, like Google's) valid until now + 1 h.
  func issue(realNowMs: Int64) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    let token = "ya29." + String((0..<150).map { _ in alphabet.randomElement() ?? "A" })
    issued.withLock { tokens in
      tokens = tokens.filter { $0.value > realNowMs }
      tokens[token] = realNowMs + Self.lifetimeSeconds * 1_000
    }
    return token
  }

  /// Whether `authorization` (`Bearer <token>`) carries a token issued here and not expired.
  func accepts(authorization: String?, realNowMs: Int64) -> Bool {
    guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
    let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
    return issued.withLock { ($0[token] ?? .min) > realNowMs }
  }
}
