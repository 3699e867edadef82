import AppStore
import AsyncHTTPClient
import Foundation
import Logging
import TollgateCore
import TollgateCrypto
import TollgateWorker

/// One configured App Store app, ready to talk to Apple: its verifiers and clients, built once.
struct AppleApp: Sendable {
  let settings: AppleAppSettings
  let verifier: SignedDataVerifier
  let receiptVerifier: AppReceiptVerifier
  let productionAPI: AppStoreServerAPIClient?
  let sandboxAPI: AppStoreServerAPIClient?
  let verifyReceipt: VerifyReceiptClient
  /// The app-specific shared secret (verifyReceipt, V1 notifications), when configured.
  let sharedSecret: String?

  var bundleId: String { settings.bundleId }

  init(
    settings: AppleAppSettings, environment variables: [String: String], httpClient: HTTPClient,
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) throws {
    self.settings = settings
    let roots =
      try settings.rootCertificates.map { try AppleRootCertificates.load(files: $0) }
      ?? AppleRootCertificates.loadPinned()
    verifier = SignedDataVerifier(
      config: .init(
        rootCertificates: roots, bundleId: settings.bundleId, appAppleId: settings.appAppleId,
        environment: settings.isProduction ? .production : .sandbox, allowSandbox: settings.allowSandbox),
      now: nowMs)
    receiptVerifier = AppReceiptVerifier(rootCertificates: roots, bundleId: settings.bundleId, now: nowMs)
    guard let pem = settings.apiPrivateKeyPEM(environment: variables), let keyId = settings.apiKeyId,
      let issuerId = settings.apiIssuerId
    else {
      throw WorkerConfigurationError(problems: ["appStore (\(settings.bundleId)): the API key is not configured"])
    }
    let tokens = AppStoreBearerTokens(
      try AppStoreServerAPIToken(privateKeyPEM: pem, keyId: keyId, issuerId: issuerId, bundleId: settings.bundleId))
    let bearer: @Sendable () throws -> String = { try tokens.token() }
    let production = settings.isProduction
    let requestTimeout = Duration.milliseconds(settings.requestTimeoutMs)
    productionAPI =
      production
      ? AppStoreServerAPIClient(
        config: .init(
          baseURL: settings.apiBaseURL ?? AppStoreServerAPIConfig.productionBaseURL, timeout: requestTimeout),
        httpClient: httpClient,
        bearerToken: bearer, logger: logger)
      : nil
    sandboxAPI =
      (!production || settings.allowSandbox)
      ? AppStoreServerAPIClient(
        config: .init(
          baseURL: settings.sandboxAPIBaseURL ?? (production ? nil : settings.apiBaseURL)
            ?? AppStoreServerAPIConfig.sandboxBaseURL,
          timeout: requestTimeout), httpClient: httpClient, bearerToken: bearer, logger: logger)
      : nil
    let sharedSecret = settings.sharedSecret(environment: variables)
    self.sharedSecret = sharedSecret
    verifyReceipt = VerifyReceiptClient(
      config: .init(
        productionURL: settings.verifyReceiptURL ?? VerifyReceiptClient.Config.productionURL,
        sandboxURL: settings.sandboxVerifyReceiptURL ?? VerifyReceiptClient.Config.sandboxURL,
        sharedSecret: sharedSecret),
      httpClient: httpClient, logger: logger)
  }

  /// The environments to ask, in order, when a transaction's environment is not known yet.
  func environments(hint: StoreEnvironment?) -> [StoreEnvironment] {
    if let hint { return [hint] }
    if settings.isProduction { return settings.allowSandbox ? [.production, .sandbox] : [.production] }
    return [.sandbox]
  }

  func api(_ environment: StoreEnvironment) -> AppStoreServerAPIClient? {
    environment == .production ? productionAPI : sandboxAPI
  }

  /// Whether purchases from `environment` are accepted for this app.
  func accepts(_ environment: StoreEnvironment) -> Bool {
    switch environment {
    case .production: settings.isProduction
    case .sandbox: !settings.isProduction || settings.allowSandbox
    }
  }
}
