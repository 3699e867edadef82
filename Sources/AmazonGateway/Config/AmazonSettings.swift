import TollgateCore
import TollgateWorker

/// The worker config file's `amazon` section: the Amazon Appstore apps this worker verifies
/// purchases for (a JSON array of `AmazonAppSettings`).
public struct AmazonSettings: StoreSettings, Decodable, Hashable {
  public static let sectionKey = "amazon"
  public var apps: [AmazonAppSettings]

  public init(apps: [AmazonAppSettings]) {
    self.apps = apps
  }

  public init(from decoder: any Decoder) throws {
    apps = try [AmazonAppSettings](from: decoder)
  }

  public var store: Store { .amazon }
  public var isEmpty: Bool { apps.isEmpty }

  public func problems(catalog: ProductCatalog, environment: [String: String]) -> [String] {
    var problems: [String] = []
    for (index, app) in apps.enumerated() {
      let path = "\(Self.sectionKey)[\(index)]"
      problems += app.problems(environment: environment).map { "\(path) (\(app.appPackageName)): \($0)" }
      if !catalog.apps.contains(where: { $0.store == .amazon && $0.amazonAppId == app.appPackageName }) {
        problems.append("\(path): \(app.appPackageName) is not among \"apps\" with store amazon (amazonAppId)")
      }
      if apps[..<index].contains(where: { $0.appPackageName == app.appPackageName }) {
        problems.append("\(path): \(app.appPackageName) is configured twice")
      }
    }
    return problems
  }
}
