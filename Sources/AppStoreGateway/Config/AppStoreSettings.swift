import TollgateCore
import TollgateWorker

/// The worker config file's `appStore` section: the App Store apps this worker verifies purchases
/// for (a JSON array of `AppleAppSettings`).
public struct AppStoreSettings: StoreSettings, Decodable, Hashable {
  public static let sectionKey = "appStore"
  public var apps: [AppleAppSettings]

  public init(apps: [AppleAppSettings]) {
    self.apps = apps
  }

  public init(from decoder: any Decoder) throws {
    apps = try [AppleAppSettings](from: decoder)
  }

  public var store: Store { .appStore }
  public var isEmpty: Bool { apps.isEmpty }

  public func problems(catalog: ProductCatalog, environment: [String: String]) -> [String] {
    var problems: [String] = []
    for (index, app) in apps.enumerated() {
      let path = "\(Self.sectionKey)[\(index)]"
      problems += app.problems(environment: environment).map { "\(path) (\(app.bundleId)): \($0)" }
      if !catalog.apps.contains(where: { $0.store == .appStore && $0.bundleId == app.bundleId }) {
        problems.append("\(path): bundle id \(app.bundleId) is not among \"apps\" with store app_store")
      }
    }
    return problems
  }
}
