import AppStore
import TollgateCrypto

/// What the Apple harnesses verify with: Apple's bundled public roots and the fuzz test root, the
/// seeds' app, and a fixed clock (a payload without a signed date is checked at the seeds' time).
enum AppleFixtures {
  static let bundleId = "com.example.fuzz"
  static let appAppleId: Int64 = 1234
  static let sharedSecret = "fuzz-shared-secret"
  /// 2026-11-24T00:00:00Z, when the seeds were signed.
  static let nowMs: Int64 = 1_795_478_400_000

  static let roots: [Certificate] = {
    var roots = (try? AppleRootCertificates.bundledRoots()) ?? []
    if let testRoot = try? Certificate(pem: FuzzCertificates.appleTestRoot) { roots.append(testRoot) }
    precondition(roots.count >= 2, "the fuzz roots do not load")
    return roots
  }()

  /// Production, sandbox allowed: the checks a worker configured for the app runs.
  static let signedVerifier = SignedDataVerifier(
    config: .init(
      rootCertificates: roots, bundleId: bundleId, appAppleId: appAppleId, environment: .production,
      allowSandbox: true),
    now: { nowMs })

  /// Xcode: the payload decoding and app checks without a signature (cheap, so every payload
  /// kind is decoded from every input).
  static let unsignedVerifier = SignedDataVerifier(
    config: .init(rootCertificates: roots, bundleId: bundleId, appAppleId: appAppleId, environment: .xcode),
    now: { nowMs })

  static let receiptVerifier = AppReceiptVerifier(rootCertificates: roots, bundleId: bundleId, now: { nowMs })
}
