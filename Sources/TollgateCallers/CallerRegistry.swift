import Synchronization

/// The callers a server accepts, replaceable while it runs (a reloaded callers file). Connections
/// keep the caller they authenticated as and check it again after a replacement: a removed caller
/// or a changed key ends their access at their next read, changed scopes apply from then.
public final class CallerRegistry: Sendable {
  private let callers: Mutex<[String: CallerKey]>
  /// Bumped by every replacement; connections compare it once per read.
  private let generationCounter = Atomic<UInt64>(1)

  public init(_ callers: [CallerKey]) {
    self.callers = Mutex(Self.byName(callers))
  }

  private static func byName(_ callers: [CallerKey]) -> [String: CallerKey] {
    Dictionary(callers.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
  }

  public var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

  public var count: Int { callers.withLock { $0.count } }

  /// Replaces every caller.
  public func replace(with callers: [CallerKey]) {
    let table = Self.byName(callers)
    self.callers.withLock { $0 = table }
    generationCounter.add(1, ordering: .releasing)
  }

  /// The caller named `name` if `key` is its key.
  public func authenticate(name: String, key: String) -> CallerKey? {
    guard let caller = callers.withLock({ $0[name] }) else {
      // The same work as a wrong key, so that the answer's timing does not tell which names exist.
      _ = CallerKey.digest(of: key)
      return nil
    }
    return caller.matches(key: key) ? caller : nil
  }

  /// The caller named `name` as configured now, if its key is still `keySha256`.
  public func current(name: String, keySha256: [UInt8]) -> CallerKey? {
    guard let caller = callers.withLock({ $0[name] }), caller.keySha256 == keySha256 else { return nil }
    return caller
  }
}
