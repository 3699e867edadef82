import AmazonGateway
import AppStoreGateway
import Foundation
import GooglePlayGateway
import TollgateWorker

/// Everything `tollgate worker` reads from its config file: the catalog, `worker`, `webhooks` and
/// each store's section. Loading reports every problem of decoding at once (a value of the wrong
/// type in one section does not hide one in another, nor an unknown key); `problems(environment:)`
/// then every problem of the values (ranges, addresses, event kinds, secrets that cannot be read).
struct WorkerConfigFile {
  var configuration: WorkerConfiguration
  var appStore: AppStoreSettings
  var googlePlay: GooglePlaySettings
  var amazon: AmazonSettings

  /// The store sections the worker reads, each owned by its gateway module.
  static let storeSections: [any (StoreSettings & Decodable).Type] = [
    AppStoreSettings.self, GooglePlaySettings.self, AmazonSettings.self,
  ]

  /// Reads and decodes `path`; throws every problem found when it cannot be used.
  static func load(_ path: String) throws(ConfigProblems) -> WorkerConfigFile {
    let data = try ConfigFile.data(path)
    do throws(WorkerConfigurationError) {
      _ = try ConfigKeys(json: data)
    } catch {
      // Not JSON, or not an object: nothing else can be said.
      throw ConfigProblems(path: path, problems: error.problems)
    }
    var problems: [String] = []
    var configuration: WorkerConfiguration?
    do {
      configuration = try WorkerConfiguration.decode(data, storeSections: storeSections)
    } catch {
      problems += error.problems
    }
    func section<Settings: StoreSettings & Decodable>(_: Settings.Type) -> Settings? {
      do {
        return try Settings.section(in: data)
      } catch {
        problems += error.problems
        return nil
      }
    }
    let appStore = section(AppStoreSettings.self)
    let googlePlay = section(GooglePlaySettings.self)
    let amazon = section(AmazonSettings.self)
    guard let configuration, problems.isEmpty else { throw ConfigProblems(path: path, problems: problems) }
    return WorkerConfigFile(
      configuration: configuration, appStore: appStore ?? AppStoreSettings(apps: []),
      googlePlay: googlePlay ?? GooglePlaySettings(apps: []), amazon: amazon ?? AmazonSettings(apps: []))
  }

  var stores: [any StoreSettings] { [appStore, googlePlay, amazon] }

  /// Every problem of the values, each starting with its key; unknown keys included.
  func problems(environment: [String: String]) -> [String] {
    configuration.problems(environment: environment, stores: stores)
  }
}
