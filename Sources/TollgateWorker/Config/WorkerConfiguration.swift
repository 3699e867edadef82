import Foundation
import TollgateCore
import TollgateHTTPListener

/// Everything `tollgate worker` reads from its config file (JSON). The catalog (`apps`,
/// `entitlements`, `products`, `subscriptionGroups`, policies) sits at the top level as
/// `ProductCatalog` reads it; `worker` and `webhooks` are this process's own sections. Each store's
/// section (`appStore`, ...) belongs to its gateway module (`StoreSettings`).
public struct WorkerConfiguration: Sendable {
  public var catalog: ProductCatalog
  public var worker: WorkerSettings
  /// The company's endpoints for state-change events.
  public var webhooks: [WebhookSettings]
  /// Keys of the file that nothing reads (`ConfigKeys`), found by `decode`: reported by
  /// `problems(environment:stores:)` with the rest.
  public var keyProblems: [String] = []

  public init(
    catalog: ProductCatalog, worker: WorkerSettings = WorkerSettings(), webhooks: [WebhookSettings] = []
  ) {
    self.catalog = catalog
    self.worker = worker
    self.webhooks = webhooks
  }

  private struct WorkerSection: Decodable {
    var worker: WorkerSettings?
  }

  private struct WebhooksSection: Decodable {
    var webhooks: [WebhookSettings]?
  }

  /// Decodes the file's JSON; problems are reported with their path, every one at once: a value
  /// of the wrong type in the catalog, `worker` or `webhooks` does not hide one in another. Every
  /// key of the catalog, `worker`, `webhooks` and the sections of `storeSections` must be one they
  /// read, and every top-level key a known section (`ConfigKeys`): the others are kept in
  /// `keyProblems`.
  public static func decode(
    _ data: Data, storeSections: [any (StoreSettings & Decodable).Type] = []
  ) throws(WorkerConfigurationError) -> WorkerConfiguration {
    // Not JSON, or not an object: that alone is the problem.
    let keys = try ConfigKeys(json: data)
    var problems: [String] = []
    func decoded<T: Decodable>(_ type: T.Type) -> T? {
      do {
        return try JSONDecoder().decode(type, from: data)
      } catch let error as DecodingError {
        problems.append(error.readablePath)
      } catch {
        problems.append("\(error)")
      }
      return nil
    }
    let catalog = decoded(ProductCatalog.self)
    let worker = decoded(WorkerSection.self)
    let webhooks = decoded(WebhooksSection.self)
    keys.read(ProductCatalog.self)
    keys.read(WorkerSettings.self, section: "worker")
    keys.read([WebhookSettings].self, section: "webhooks")
    for section in storeSections { read(section, into: keys) }
    // The keys of what decoded are judged even when another part did not.
    guard let catalog, let worker, let webhooks else {
      throw WorkerConfigurationError(problems: problems + keys.problems)
    }
    var configuration = WorkerConfiguration(
      catalog: catalog, worker: worker.worker ?? WorkerSettings(), webhooks: webhooks.webhooks ?? [])
    configuration.keyProblems = keys.problems
    return configuration
  }

  private static func read<Settings: StoreSettings & Decodable>(_ type: Settings.Type, into keys: ConfigKeys) {
    keys.read(type, section: type.sectionKey)
  }

  /// Every problem at once, so an operator fixes the file in one go: the catalog's, the worker's
  /// own sections' and those of every store section in `stores`, at least one of which must
  /// configure something.
  public func problems(environment: [String: String], stores: [any StoreSettings]) -> [String] {
    var problems = catalog.validate().map { "\($0.path): \($0.message)" }
    if stores.allSatisfy(\.isEmpty) {
      let keys = stores.map { "\"\(type(of: $0).sectionKey)\"" }.joined(separator: ", ")
      problems.append("no store is configured: add an app to one of \(keys)")
    }
    for settings in stores {
      problems += settings.problems(catalog: catalog, environment: environment)
    }
    problems += keyProblems
    problems += worker.problems()
    for (index, webhook) in webhooks.enumerated() {
      problems += webhook.problems(environment: environment).map { "webhooks[\(index)]: \($0)" }
    }
    return problems
  }

  /// Throws every problem at once, if there is any.
  public func validate(
    environment: [String: String], stores: [any StoreSettings]
  ) throws(WorkerConfigurationError) {
    let problems = problems(environment: environment, stores: stores)
    guard problems.isEmpty else { throw WorkerConfigurationError(problems: problems) }
  }
}

public struct WorkerConfigurationError: Error, CustomStringConvertible {
  public var problems: [String]

  public init(problems: [String]) {
    self.problems = problems
  }

  public var description: String {
    "invalid configuration:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
  }
}

extension WorkerConfiguration {
  /// `text` as the address to listen on under `key` (`worker.listen`); when it is not
  /// `HOST:PORT`, a configuration error with the same problem the config check reports.
  static func listenAddress(_ text: String, key: String) throws(WorkerConfigurationError) -> ListenAddress {
    do {
      return try ListenAddress.parse(text, key: key)
    } catch {
      throw WorkerConfigurationError(problems: error.problems)
    }
  }
}

extension DecodingError {
  /// Where in the file the problem is, and what it is, for an operator.
  public var readablePath: String {
    func at(_ context: Context) -> String {
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }
    switch self {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): return at(context)
    case .keyNotFound(let key, let context): return "\(at(context)) (missing \(key.stringValue))"
    @unknown default: return "\(self)"
    }
  }
}
