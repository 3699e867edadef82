import Synchronization

/// An `X509ChainVerifier` that remembers the chains it verified: the App Store signs every payload
/// with one of a handful of leaves under one intermediate, so the same `x5c` comes back thousands
/// of times a minute, and building and checking its chain (two certificates parsed, a store, two
/// signatures) costs more than the payload's own ES256 check.
///
/// A chain is remembered by the SHA-256 of its two certificates' bytes (leaf, intermediate), with
/// the leaf's verified key and the window in which every certificate of the chain it built is
/// valid. A later verification of the same bytes at a moment inside that window returns the
/// remembered key without building the chain again; at any other moment, or for any other bytes
/// (a forged or altered certificate, another chain with the same leaf key), the whole chain is
/// verified as `X509ChainVerifier` does, and its answer, error included, is the answer. Only a
/// chain that verified is ever remembered: a failure is never cached. The verifier's roots and
/// OIDs are fixed at init, so what was remembered stays true for it. No revocation is checked,
/// with or without the cache (Apple's chains are checked as the App Store Server Library does
/// without online checks). The caller still checks the payload's signature with the key, every
/// time.
///
/// Bounded: at most `capacity` chains, the oldest remembered forgotten first.
public struct CachedChainVerifier: Sendable {
  public let verifier: X509ChainVerifier
  private let cache: VerifiedChainCache

  public init(_ verifier: X509ChainVerifier, capacity: Int = VerifiedChainCache.defaultCapacity) {
    self.verifier = verifier
    self.cache = VerifiedChainCache(capacity: capacity)
  }

  /// `X509ChainVerifier.verify(leaf:intermediate:at:)`, through the cache. Without a time
  /// (`nil`: no validity checks) the chain is verified in full and not remembered.
  public func verify(leaf: [UInt8], intermediate: [UInt8], at time: Int64?) throws(CryptoError) -> P256PublicKey {
    guard let time else { return try verifier.verify(leaf: leaf, intermediate: intermediate, at: nil) }
    let key = VerifiedChainCache.key(.der, leaf: leaf, intermediate: intermediate)
    if let remembered = cache.chain(for: key), remembered.isValid(at: time) { return remembered.key }
    let verified = try verifier.verifiedChain(leaf: leaf, intermediate: intermediate, at: time)
    cache.remember(verified, for: key)
    return verified.key
  }

  /// `verify(leaf:intermediate:at:)` for certificates given as base64 text (a JWS header's
  /// `x5c` entries), remembered by that text: a remembered chain is taken without decoding it.
  /// Text that is not base64 throws `.malformedCertificate` ("an x5c entry is not base64").
  public func verify(base64Leaf: String, base64Intermediate: String, at time: Int64) throws(CryptoError)
    -> P256PublicKey
  {
    let key = VerifiedChainCache.key(
      .base64, leaf: Array(base64Leaf.utf8), intermediate: Array(base64Intermediate.utf8))
    if let remembered = cache.chain(for: key), remembered.isValid(at: time) { return remembered.key }
    guard let leaf = Base64.decode(base64Leaf), let intermediate = Base64.decode(base64Intermediate) else {
      throw CryptoError(code: .malformedCertificate, message: "an x5c entry is not base64")
    }
    let verified = try verifier.verifiedChain(leaf: leaf, intermediate: intermediate, at: time)
    cache.remember(verified, for: key)
    return verified.key
  }

  /// How many chains are remembered now.
  public var count: Int { cache.count }
}

/// The chains a `CachedChainVerifier` verified, by the SHA-256 of their certificates' bytes;
/// bounded, oldest forgotten first.
public final class VerifiedChainCache: Sendable {
  public static let defaultCapacity = 256

  private struct State {
    var chains: [[UInt8]: X509ChainVerifier.Verified] = [:]
    /// Keys in the order they were remembered, for forgetting the oldest.
    var order: [[UInt8]] = []
  }

  private let capacity: Int
  private let state = Mutex(State())

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  /// How a chain's certificates were given: DER, or base64 text.
  enum Form: UInt8 {
    case der = 0
    case base64 = 1
  }

  /// The key of a chain: SHA-256 over the form (1 byte), the leaf's length (8 bytes,
  /// big-endian), the leaf and the intermediate, so no two different pairs of certificates (or
  /// texts) share the hashed bytes.
  static func key(_ form: Form, leaf: [UInt8], intermediate: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [form.rawValue]
    bytes.reserveCapacity(9 + leaf.count + intermediate.count)
    let length = UInt64(leaf.count)
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
    }
    bytes += leaf
    bytes += intermediate
    return SHA256.hash(bytes)
  }

  func chain(for key: [UInt8]) -> X509ChainVerifier.Verified? {
    state.withLock { $0.chains[key] }
  }

  func remember(_ chain: X509ChainVerifier.Verified, for key: [UInt8]) {
    state.withLock { state in
      if state.chains.updateValue(chain, forKey: key) != nil { return }
      state.order.append(key)
      if state.order.count > capacity {
        let oldest = state.order.removeFirst()
        state.chains.removeValue(forKey: oldest)
      }
    }
  }

  var count: Int { state.withLock { $0.chains.count } }
}
