import AsyncHTTPClient
import GooglePlay
import Logging
import TollgateWorker

/// One configured Google Play app, ready to talk to Google: its service account's token provider
/// and its Android Publisher client, built once.
struct GooglePlayApp: Sendable {
  let settings: GooglePlayAppSettings
  let api: AndroidPublisherClient
  /// Checks Play Billing signatures, when the app's licensing key is configured.
  let billingSignature: PlayBillingSignatureVerifier?

  var packageName: String { settings.packageName }

  init(
    settings: GooglePlayAppSettings, environment: [String: String], httpClient: HTTPClient,
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) throws {
    self.settings = settings
    var key: ServiceAccountKey
    do {
      // Read once, here: `ConfigSecret` (the environment variable or the file, relative paths
      // under $CREDENTIALS_DIRECTORY).
      let json: String
      do {
        json = try settings.serviceAccountKeySource.value(environment: environment)
      } catch {
        throw WorkerConfigurationError(problems: ["googlePlay (\(settings.packageName)): \(error)"])
      }
      key = try ServiceAccountKey(json: Array(json.utf8))
    } catch let error as GoogleAuthError {
      throw WorkerConfigurationError(problems: ["googlePlay (\(settings.packageName)): \(error.message)"])
    }
    if let tokenURI = settings.tokenURI { key.tokenURI = tokenURI }
    billingSignature = settings.licensingKey.flatMap { try? PlayBillingSignatureVerifier(licensingKeyBase64: $0) }
    let tokens = GoogleAccessTokenProvider(key: key, httpClient: httpClient, now: nowMs, logger: logger)
    api = AndroidPublisherClient(
      config: .init(baseURL: settings.apiBaseURL ?? AndroidPublisherConfig.productionBaseURL),
      httpClient: httpClient, accessToken: { try await tokens.accessToken() }, logger: logger)
  }
}
