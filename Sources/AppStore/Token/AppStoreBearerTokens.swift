import Foundation
import Synchronization

/// The bearer token for the App Store Server API's calls: one token, signed once and sent with
/// every call until half its lifetime has passed, then the next. Apple accepts a token until its
/// `exp` (at most an hour), so a worker need not sign (an ES256 signature and a JSON encoding)
/// for each of its thousands of calls a minute; half the lifetime left leaves room for a clock
/// that runs slightly behind Apple's.
public final class AppStoreBearerTokens: Sendable {
  private let signer: AppStoreServerAPIToken
  /// The token handed out now and when it was issued (Unix seconds).
  private let current = Mutex<(token: String, issuedAt: Int64)?>(nil)

  public init(_ signer: AppStoreServerAPIToken) {
    self.signer = signer
  }

  /// The token to send at `nowSeconds` (Unix seconds): the current one while less than half its
  /// lifetime has passed (and the clock has not gone back before its issue), otherwise a new one.
  public func token(nowSeconds: Int64) throws -> String {
    if let reused = current.withLock({ current -> String? in
      guard let current, nowSeconds >= current.issuedAt,
        nowSeconds - current.issuedAt < signer.lifetimeSeconds / 2
      else { return nil }
      return current.token
    }) {
      return reused
    }
    let token = try signer.token(nowSeconds: nowSeconds)
    current.withLock { $0 = (token, nowSeconds) }
    return token
  }

  /// The token to send now.
  public func token() throws -> String { try token(nowSeconds: Int64(Date().timeIntervalSince1970)) }
}
