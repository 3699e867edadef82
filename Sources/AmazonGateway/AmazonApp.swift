import AmazonAppstore
import AsyncHTTPClient
import Logging
import TollgateWorker

/// One configured Amazon app, ready to ask RVS: its settings, its shared secret (read once, never
/// logged) and its RVS client.
struct AmazonApp: Sendable {
  let settings: AmazonAppSettings
  let sharedSecret: String
  let rvs: RVSClient

  var appPackageName: String { settings.appPackageName }

  init(settings: AmazonAppSettings, environment: [String: String], httpClient: HTTPClient, logger: Logger) throws {
    self.settings = settings
    guard let secret = settings.sharedSecret(environment: environment) else {
      throw WorkerConfigurationError(problems: ["amazon (\(settings.appPackageName)): the shared secret cannot be read"]
      )
    }
    sharedSecret = secret
    var config = RVSConfig()
    if let base = settings.rvsBaseURL { config.productionBaseURL = base }
    if let base = settings.rvsSandboxBaseURL { config.sandboxBaseURL = base }
    rvs = RVSClient(config: config, httpClient: httpClient, logger: logger)
  }
}
