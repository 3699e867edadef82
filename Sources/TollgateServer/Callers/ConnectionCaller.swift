import TollgateCallers

/// A connection's caller as its loop keeps it: who authenticated (if anyone), against which
/// version of the callers, and how many attempts failed.
struct ConnectionCaller {
  /// Nil until the connection authenticates (always set on a server without callers).
  var identity: CallerIdentity?
  /// The configured caller it authenticated as, to check again after the callers change.
  var key: CallerKey?
  /// The registry's generation `identity` was last checked against.
  var generation: UInt64 = 0
  /// Failed Authenticate calls on this connection; a success does not reset it.
  var failedAttempts = 0
  /// The connection is closed once its answers are written (too many failed attempts).
  var mustClose = false
  /// The connection's socket, to tell its source (`PeerSource`) when an Authenticate needs it;
  /// -1 when there is none.
  let socket: Int32
  /// The source, once told (nothing is asked of the socket before an Authenticate).
  var source: PeerSource?

  init(access: CallerAccess, socket: Int32 = -1) {
    self.socket = socket
    switch access {
    case .open: identity = .anyone
    case .callers(let registry): generation = registry.generation
    }
  }

  private init(identity: CallerIdentity) {
    self.identity = identity
    self.socket = -1
  }

  /// Where the connection comes from (read from the socket the first time).
  mutating func peerSource() -> PeerSource {
    if let source { return source }
    let told = socket >= 0 ? PeerSource(peerOf: socket) : .unknown
    source = told
    return told
  }

  /// A caller that may read, for the hot path's leftovers (IsSubscriber calls of a connection the
  /// hot path already found allowed to read).
  static var reader: ConnectionCaller { ConnectionCaller(identity: CallerIdentity(name: nil, scopes: .read)) }

  /// Brings `identity` up to date with the registry after a reload: a removed caller or a
  /// changed key is no longer authenticated; changed scopes apply.
  mutating func refresh(from registry: CallerRegistry) {
    let current = registry.generation
    guard current != generation else { return }
    generation = current
    guard let key else { return }
    if let updated = registry.current(name: key.name, keySha256: key.keySha256) {
      self.key = updated
      identity = CallerIdentity(name: updated.name, scopes: updated.scopes)
    } else {
      self.key = nil
      identity = nil
    }
  }

  /// May answer IsSubscriber calls on the hot path: the scope table's answer for IsSubscriber,
  /// folded to a constant (both inlinable), so a couple of integer operations per read burst.
  var mayRead: Bool { identity?.scopes.allow(CallerOperation.isSubscriber.requiredScope) ?? false }
}
