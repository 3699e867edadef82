import Synchronization

/// The callers a server accepts, replaceable while it runs (a reloaded callers file). Connections
/// keep the caller they authenticated as and check it again after a replacement: a removed caller
/// or a changed key ends their access at their next read, changed scopes apply from then.
///
/// Callers are found by name (the fast port's Authenticate names its caller) or by their key's
/// SHA-256 (a bearer key on gRPC and HTTP names none). `CallerList` refuses one key configured
/// for two callers; a registry given such callers directly answers neither by that key.
public final class CallerRegistry: Sendable {
  private struct Table {
    var byName: [String: CallerKey]
    var byDigest: [[UInt8]: CallerKey]

    init(_ callers: [CallerKey]) {
      byName = Dictionary(callers.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
      var byDigest: [[UInt8]: CallerKey] = [:]
      var shared = Set<[UInt8]>()
      for caller in byName.values {
        if byDigest.updateValue(caller, forKey: caller.keySha256) != nil { shared.insert(caller.keySha256) }
      }
      for digest in shared { byDigest[digest] = nil }
      self.byDigest = byDigest
    }
  }

  private let table: Mutex<Table>
  /// Bumped by every replacement; connections compare it once per read.
  @usableFromInline let generationCounter = Atomic<UInt64>(1)

  public init(_ callers: [CallerKey]) {
    self.table = Mutex(Table(callers))
  }

  /// Inlinable: the fast port's loops read it once per read, from another module.
  @inlinable public var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

  public var count: Int { table.withLock { $0.byName.count } }

  /// Replaces every caller.
  public func replace(with callers: [CallerKey]) {
    let replacement = Table(callers)
    self.table.withLock { $0 = replacement }
    generationCounter.add(1, ordering: .releasing)
  }

  /// The caller named `name` if `key` is its key.
  public func authenticate(name: String, key: String) -> CallerKey? {
    guard let caller = table.withLock({ $0.byName[name] }) else {
      // The same work as a wrong key, so that the answer's timing does not tell which names exist.
      _ = CallerKey.digest(of: key)
      return nil
    }
    return caller.matches(key: key) ? caller : nil
  }

  /// The caller whose key is `bearerKey` (gRPC and HTTP): its SHA-256, then one lookup. What the
  /// lookup's timing could tell is about the digest, which says nothing usable about a key.
  public func authenticate(bearerKey: Substring) -> CallerKey? {
    let digest = CallerKey.digest(of: String(bearerKey))
    return table.withLock { $0.byDigest[digest] }
  }

  /// The caller named `name` as configured now, if its key is still `keySha256`.
  public func current(name: String, keySha256: [UInt8]) -> CallerKey? {
    guard let caller = table.withLock({ $0.byName[name] }), caller.keySha256 == keySha256 else { return nil }
    return caller
  }
}
