import Foundation
import TollgateCrypto

/// Verifies and decodes the JWS the App Store signs: transactions, renewal info, app
/// transactions and Server Notifications V2.
///
/// Checks, in Apple's order: the JWS shape, `alg` ES256, an `x5c` of exactly three
/// certificates, leaf ← intermediate ← a configured root at the payload's `signedDate` (or
/// `receiptCreationDate`, or now) with Apple's marker OIDs, the ES256 signature, then the app
/// (bundleId; appAppleId in production) and the environment. `x5c[2]` is never trusted: the
/// anchor is always a configured root. In Xcode and LocalTesting no signature is checked
/// (those payloads are not signed by the App Store), only the app and environment.
///
/// Chain verification is CPU work: call from a thread that may block briefly, not in a tight
/// loop on the cooperative pool.
public struct SignedDataVerifier: Sendable {
  /// "Mac App Store and iTunes Store Receipt Signing" (leaf).
  public static let leafOID = "1.2.840.113635.100.6.11.1"
  /// "Apple Worldwide Developer Relations" (intermediate).
  public static let intermediateOID = "1.2.840.113635.100.6.2.1"

  public struct Config: Sendable {
    /// Trust anchors: Apple Root CA - G3 in production, a test root in tests.
    public var rootCertificates: [Certificate]
    public var bundleId: String
    /// Required when `environment` is `.production` (Apple checks it there).
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment
    /// With `environment == .production`, also accept Sandbox payloads (TestFlight, review).
    public var allowSandbox: Bool
    /// When set, certificates are checked at this moment (ms) instead of the payload's signedDate
    /// (`tollgate inspect --at`).
    public var validationTimeMs: Int64?

    public init(
      rootCertificates: [Certificate], bundleId: String, appAppleId: Int64?, environment: AppStoreEnvironment,
      allowSandbox: Bool = false
    ) {
      self.rootCertificates = rootCertificates
      self.bundleId = bundleId
      self.appAppleId = appAppleId
      self.environment = environment
      self.allowSandbox = allowSandbox
    }
  }

  public let config: Config
  /// Remembers the chains it verified (`CachedChainVerifier`: by the certificates' bytes, with the
  /// chain's validity window; shared by the copies of this verifier). Every payload's own
  /// signature is still checked.
  private let chainVerifier: CachedChainVerifier
  private let nowMs: @Sendable () -> Int64

  /// - Parameter now: the current time in ms, used when a payload has no signed date.
  public init(config: Config, now: @escaping @Sendable () -> Int64 = SignedDataVerifier.systemNowMs) {
    self.config = config
    self.chainVerifier = CachedChainVerifier(
      X509ChainVerifier(roots: config.rootCertificates, leafOID: Self.leafOID, intermediateOID: Self.intermediateOID))
    self.nowMs = now
  }

  /// How many certificate chains this verifier remembers now (for tests).
  public var rememberedChains: Int { chainVerifier.count }

  public static let systemNowMs: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

  // MARK: Payload kinds

  public func verifyTransaction(_ signedTransaction: String) -> VerificationResult<JWSTransactionDecodedPayload> {
    decode(signedTransaction, as: JWSTransactionDecodedPayload.self).map { transaction in
      guard transaction.bundleId == config.bundleId else {
        return .invalid(.appIdentifier("transaction bundleId \(transaction.bundleId ?? "nil")"))
      }
      return checkEnvironment(transaction.environment, transaction)
    }
  }

  public func verifyRenewalInfo(_ signedRenewalInfo: String) -> VerificationResult<JWSRenewalInfoDecodedPayload> {
    decode(signedRenewalInfo, as: JWSRenewalInfoDecodedPayload.self).map { checkEnvironment($0.environment, $0) }
  }

  public func verifyAppTransaction(_ signedAppTransaction: String) -> VerificationResult<AppTransaction> {
    decode(signedAppTransaction, as: AppTransaction.self).map { app in
      checkApp(bundleId: app.bundleId, appAppleId: app.appAppleId, environment: app.receiptType, app)
    }
  }

  /// Verifies the `signedPayload` of a notification (the nested JWS are not verified here; see
  /// `verifyNotificationContents`).
  public func verifyNotification(_ signedPayload: String) -> VerificationResult<ResponseBodyV2DecodedPayload> {
    decode(signedPayload, as: ResponseBodyV2DecodedPayload.self).map { notification in
      let context = notification.appContext
      return checkApp(
        bundleId: context.bundleId, appAppleId: context.appAppleId, environment: context.environment, notification)
    }
  }

  // MARK: Checks

  private func checkApp<T>(bundleId: String?, appAppleId: Int64?, environment: String?, _ value: T)
    -> VerificationResult<T>
  {
    if bundleId != config.bundleId || (config.environment == .production && appAppleId != config.appAppleId) {
      return .invalid(
        .appIdentifier("bundleId \(bundleId ?? "nil"), appAppleId \(appAppleId.map(String.init) ?? "nil")"))
    }
    return checkEnvironment(environment, value)
  }

  private func checkEnvironment<T>(_ raw: String?, _ value: T) -> VerificationResult<T> {
    let environment = raw.flatMap(AppStoreEnvironment.init(rawValue:))
    let accepted =
      environment == config.environment
      || (config.environment == .production && config.allowSandbox && environment == .sandbox)
    guard accepted else {
      return .invalid(
        VerificationError(
          code: .invalidEnvironment,
          message: "payload environment \(raw ?? "nil"), expected \(config.environment.rawValue)"))
    }
    return .valid(value)
  }

  // MARK: Signature

  /// Verifies the signature of `compact` (unless the configured environment is unsigned) and
  /// decodes its payload.
  public func decode<T: AppStoreSignedPayload>(_ compact: String, as type: T.Type) -> VerificationResult<T> {
    let jws: JWS
    switch JWS.parse(compact) {
    case .success(let parsed): jws = parsed
    case .failure(let error): return .invalid(error)
    }
    let payload: T
    do {
      payload = try JSONDecoder().decode(T.self, from: Data(jws.payload))
    } catch {
      return .invalid(VerificationError(code: .malformedPayload, message: "payload does not decode: \(error)"))
    }
    if !config.environment.isSignedByAppStore { return .valid(payload) }
    // The chain is checked at the moment the payload says it was signed: read from the payload
    // decoded above, not decoded again.
    if let error = verifySignature(jws, atSeconds: signingTimeSeconds(payload.signingDateMs)) {
      return .invalid(error)
    }
    return .valid(payload)
  }

  /// The checks that involve the certificate chain and the signature; `nil` when they pass. The
  /// chain is checked at the payload's `signedDate` (else `receiptCreationDate`, else now).
  public func verifySignature(_ jws: JWS) -> VerificationError? {
    struct SigningTime: Decodable {
      @Milliseconds var signedDate: Int64?
      @Milliseconds var receiptCreationDate: Int64?
    }
    let time = try? JSONDecoder().decode(SigningTime.self, from: Data(jws.payload))
    return verifySignature(jws, atSeconds: signingTimeSeconds(time?.signedDate ?? time?.receiptCreationDate))
  }

  private func verifySignature(_ jws: JWS, atSeconds signingTime: Int64) -> VerificationError? {
    guard jws.header.alg == "ES256" else {
      return VerificationError(code: .unsupportedAlgorithm, message: "alg \(jws.header.alg ?? "nil") is not ES256")
    }
    guard let x5c = jws.header.x5c else {
      return VerificationError(code: .missingCertificateChain, message: "the JWS header has no x5c")
    }
    guard x5c.count == 3 else {
      return VerificationError(code: .invalidChainLength, message: "x5c holds \(x5c.count) certificates, expected 3")
    }
    let key: P256PublicKey
    do {
      key = try chainVerifier.verify(
        base64Leaf: x5c[0], base64Intermediate: x5c[1], at: signingTime)
    } catch {
      let code: VerificationError.Code =
        error.code == .malformedCertificate ? .invalidCertificate : .verificationFailure
      return VerificationError(code: code, message: error.message)
    }
    guard ES256.isValidSignature(jws.signature, for: jws.signingInput, publicKey: key) else {
      return VerificationError(code: .signatureMismatch, message: "the ES256 signature does not match header.payload")
    }
    return nil
  }

  /// The moment a chain is checked at, in Unix seconds: the configured validation time, else the
  /// payload's signing date, else now.
  private func signingTimeSeconds(_ signedAtMs: Int64?) -> Int64 {
    let ms = config.validationTimeMs ?? signedAtMs ?? nowMs()
    return ms >= 0 ? ms / 1000 : (ms - 999) / 1000
  }
}

extension VerificationError {
  static func appIdentifier(_ detail: String) -> VerificationError {
    VerificationError(code: .invalidAppIdentifier, message: "not the configured app: \(detail)")
  }
}
