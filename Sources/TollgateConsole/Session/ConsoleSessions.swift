import Synchronization
import TollgateCrypto

/// One signed-in operator: who signed in (the caller's name and its key's SHA-256, checked again
/// against the callers on every request, so a removed caller or a changed key ends the session),
/// the form token every POST must carry, and when the session started and was last used.
struct ConsoleSession: Sendable, Hashable {
  /// The cookie's value: 32 random bytes, hex.
  let id: String
  /// The CSRF token of every form of this session: 32 random bytes, hex.
  let csrfToken: String
  let callerName: String
  let keySha256: [UInt8]
  /// Who the operator said they are at sign-in (recorded with their writes as `requested_by`);
  /// nil when left blank.
  let requestedBy: String?
  let createdAtMs: Int64
  var lastSeenAtMs: Int64
  /// A sentence for the next page this session shows (what the last form did), shown once.
  var flash: ConsoleFlash?

  /// Whether `token` is this session's CSRF token, compared in constant time.
  func accepts(csrfToken token: String) -> Bool {
    HMACSHA256.isEqual(SHA256.hash(token), SHA256.hash(csrfToken))
  }
}

/// A one-time message on the next page: what a form did, or why it did nothing.
struct ConsoleFlash: Sendable, Hashable {
  enum Kind: String, Sendable, Hashable {
    case done, problem
  }
  var kind: Kind
  var text: String
}

/// The console's sessions, in memory: each serve keeps its own (an operator behind a load
/// balancer signs in to the replica they reach). A session ends `idleMs` after its last request,
/// `absoluteMs` after sign-in whatever happens, or at sign-out; past `maximumSessions` the least
/// recently used one goes.
final class ConsoleSessions: Sendable {
  struct Limits: Sendable, Hashable {
    var idleMs: Int64 = 30 * 60_000
    var absoluteMs: Int64 = 8 * 3_600_000
    var maximumSessions = 1_000
  }

  let limits: Limits
  private let table = Mutex<[String: ConsoleSession]>([:])

  init(limits: Limits) {
    self.limits = limits
  }

  /// Sessions held now (expired ones included until they are next touched or pruned).
  var count: Int { table.withLock { $0.count } }

  /// A new session for the caller; a fresh id every time (a sign-in never reuses a cookie it
  /// was sent, so a planted one cannot be made to carry someone's session).
  func create(callerName: String, keySha256: [UInt8], requestedBy: String?, nowMs: Int64) -> ConsoleSession {
    let session = ConsoleSession(
      id: Self.randomToken(), csrfToken: Self.randomToken(), callerName: callerName, keySha256: keySha256,
      requestedBy: requestedBy, createdAtMs: nowMs, lastSeenAtMs: nowMs, flash: nil)
    let limits = self.limits
    table.withLock { sessions in
      sessions = sessions.filter { Self.isLive($0.value, nowMs: nowMs, limits: limits) }
      if sessions.count >= limits.maximumSessions,
        let oldest = sessions.values.min(by: { $0.lastSeenAtMs < $1.lastSeenAtMs })
      {
        sessions[oldest.id] = nil
      }
      sessions[session.id] = session
    }
    return session
  }

  /// The live session `id` names, marked used now (its flash taken off it when `takeFlash`); nil
  /// for an unknown or expired one (which is forgotten).
  func use(_ id: String, nowMs: Int64, takeFlash: Bool = false) -> ConsoleSession? {
    let limits = self.limits
    return table.withLock { sessions in
      guard var session = sessions[id] else { return nil }
      guard Self.isLive(session, nowMs: nowMs, limits: limits) else {
        sessions[id] = nil
        return nil
      }
      let shown = session
      session.lastSeenAtMs = nowMs
      if takeFlash { session.flash = nil }
      sessions[id] = session
      return shown
    }
  }

  /// Sets the message the session's next page shows.
  func setFlash(_ flash: ConsoleFlash, for id: String) {
    table.withLock { $0[id]?.flash = flash }
  }

  /// Ends the session (sign-out, or its caller is gone).
  func end(_ id: String) {
    _ = table.withLock { $0.removeValue(forKey: id) }
  }

  static func isLive(_ session: ConsoleSession, nowMs: Int64, limits: Limits) -> Bool {
    nowMs - session.lastSeenAtMs < limits.idleMs && nowMs - session.createdAtMs < limits.absoluteMs
  }

  /// 32 bytes from the system's CSPRNG (getrandom on Linux), as 64 lower-case hex digits.
  static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(64)
    for _ in 0..<4 {
      var word = generator.next()
      for _ in 0..<16 {
        text.append(digits[Int(word & 0xF)])
        word >>= 4
      }
    }
    return String(decoding: text, as: UTF8.self)
  }
}
