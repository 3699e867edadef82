import TollgateCore
import TollgateWorker

/// The worker config file's `googlePlay` section: the Google Play apps this worker verifies
/// purchases for (a JSON array of `GooglePlayAppSettings`).
public struct GooglePlaySettings: StoreSettings, Decodable, Hashable {
  public static let sectionKey = "googlePlay"
  public var apps: [GooglePlayAppSettings]

  public init(apps: [GooglePlayAppSettings]) {
    self.apps = apps
  }

  public init(from decoder: any Decoder) throws {
    apps = try [GooglePlayAppSettings](from: decoder)
  }

  public var store: Store { .googlePlay }
  public var isEmpty: Bool { apps.isEmpty }

  public func problems(catalog: ProductCatalog, environment: [String: String]) -> [String] {
    var problems: [String] = []
    for (index, app) in apps.enumerated() {
      let path = "\(Self.sectionKey)[\(index)]"
      problems += app.problems(environment: environment).map { "\(path) (\(app.packageName)): \($0)" }
      if !catalog.apps.contains(where: { $0.store == .googlePlay && $0.packageName == app.packageName }) {
        problems.append("\(path): package name \(app.packageName) is not among \"apps\" with store google_play")
      }
      if apps[..<index].contains(where: { $0.packageName == app.packageName }) {
        problems.append("\(path): package name \(app.packageName) is configured twice")
      }
    }
    return problems
  }
}
