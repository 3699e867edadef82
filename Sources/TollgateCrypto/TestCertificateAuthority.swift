import CTollgateCrypto

/// A throwaway P-256 PKI shaped like Apple's App Store signing chain: a self-signed root, an
/// intermediate carrying `intermediateOID`, and a leaf carrying `leafOID` whose private key
/// signs JWS. For tests and the store simulator only.
public struct TestCertificateAuthority: Sendable {
  /// A validity window, Unix seconds.
  public struct Validity: Sendable, Hashable {
    public var notBefore: Int64
    public var notAfter: Int64

    public init(notBefore: Int64, notAfter: Int64) {
      self.notBefore = notBefore
      self.notAfter = notAfter
    }

    /// From one day before `now` to `years` years after it.
    public static func around(_ now: Int64, years: Int64 = 10) -> Validity {
      Validity(notBefore: now - 86_400, notAfter: now + years * 365 * 86_400)
    }
  }

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
    root = try Self.issue(
      subjectKey: rootKey, commonName: "\(prefix) Root CA", issuer: nil, serial: 1,
      validity: options.root ?? .around(now, years: 20), isCA: true, markerOID: nil)
    intermediate = try Self.issue(
      subjectKey: intermediateKey, commonName: "\(prefix) Intermediate CA", issuer: (root, rootKey), serial: 2,
      validity: options.intermediate ?? .around(now), isCA: true, markerOID: options.intermediateOID)
    leaf = try Self.issue(
      subjectKey: leafKey, commonName: "\(prefix) Signing", issuer: (intermediate, intermediateKey), serial: 3,
      validity: options.leaf ?? .around(now, years: 2), isCA: false, markerOID: options.leafOID)
  }

  /// `x5c` order: leaf, intermediate, root.
  public var chain: [Certificate] { [leaf, intermediate, root] }

  /// Issues one certificate (SHA-256 signature). `issuer == nil` makes it self-signed by
  /// `subjectKey`. `markerOID` adds a non-critical extension with an ASN.1 NULL value.
  public static func issue(
    subjectKey: P256PrivateKey, commonName: String, issuer: (certificate: Certificate, key: P256PrivateKey)?,
    serial: Int64, validity: Validity, isCA: Bool, markerOID: String?
  ) throws(CryptoError) -> Certificate {
    var cert: OpaquePointer?
    let signingKey = issuer?.key ?? subjectKey
    let status = withExtendedLifetime((issuer?.certificate, signingKey, subjectKey)) {
      tg_cert_issue(
        subjectKey.handle.pointer, commonName, issuer?.certificate.handle.pointer, signingKey.handle.pointer,
        serial, validity.notBefore, validity.notAfter, isCA ? 1 : 0, markerOID, &cert)
    }
    try Shim.check(status, "cannot issue certificate \(commonName)")
    guard let cert else { throw CryptoError(code: .internalFailure, message: "no certificate returned") }
    return try Certificate(handle: CertificateHandle(cert))
  }
}
