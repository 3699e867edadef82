import TollgateCrypto

/// A throwaway P-256 PKI shaped like Apple's App Store signing chain: a self-signed root, an
/// intermediate carrying `intermediateOID`, and a leaf carrying `leafOID` whose private key
/// signs JWS. The simulator signs with one; tests forge with others.
public struct SimulatedSigningChain: Sendable {
  public typealias Validity = CertificateIssuer.Validity

  public struct Options: Sendable {
    public var root: Validity?
    public var intermediate: Validity?
    public var leaf: Validity?
    /// Apple's "Mac App Store and iTunes Store Receipt Signing" marker; `nil` omits it.
    public var leafOID: String? = "1.2.840.113635.100.6.11.1"
    /// Apple's "WWDR intermediate" marker; `nil` omits it.
    public var intermediateOID: String? = "1.2.840.113635.100.6.2.1"
    public var commonNamePrefix = "Tollgate Test"

    public init() {}

    public static var defaults: Options { Options() }
  }

  public let root: Certificate
  public let rootKey: P256PrivateKey
  public let intermediate: Certificate
  public let intermediateKey: P256PrivateKey
  public let leaf: Certificate
  /// The key a simulated store signs JWS with.
  public let leafKey: P256PrivateKey

  /// Generates a fresh PKI; windows not set in `options` are `Validity.around(now)`.
  /// - Parameter now: Unix seconds.
  public init(now: Int64, options: Options = .defaults) throws(CryptoError) {
    rootKey = try .generate()
    intermediateKey = try .generate()
    leafKey = try .generate()
    let prefix = options.commonNamePrefix
    root = try CertificateIssuer.issue(
      subjectKey: rootKey, commonName: "\(prefix) Root CA", issuer: nil, serial: 1,
      validity: options.root ?? .around(now, years: 20), isCA: true, markerOID: nil)
    intermediate = try CertificateIssuer.issue(
      subjectKey: intermediateKey, commonName: "\(prefix) Intermediate CA", issuer: (root, rootKey), serial: 2,
      validity: options.intermediate ?? .around(now), isCA: true, markerOID: options.intermediateOID)
    leaf = try CertificateIssuer.issue(
      subjectKey: leafKey, commonName: "\(prefix) Signing", issuer: (intermediate, intermediateKey), serial: 3,
      validity: options.leaf ?? .around(now, years: 2), isCA: false, markerOID: options.leafOID)
  }

  /// `x5c` order: leaf, intermediate, root.
  public var chain: [Certificate] { [leaf, intermediate, root] }
}
