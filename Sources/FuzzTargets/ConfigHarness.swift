import AmazonGateway
import AppStoreGateway
import Foundation
import GooglePlayGateway
import TollgateHTTPListener
import TollgateWorker

/// Input: a worker config file. Decoded as `tollgate worker` decodes it (the catalog and the
/// worker's own sections, each store's section by its gateway module, every key accounted for)
/// and checked; the whole input also as a listen address. The sections' key files are dropped
/// before their checks, which would read them.
enum ConfigHarness {
  static func run(_ bytes: [UInt8]) {
    let data = Data(bytes)
    var stores: [any StoreSettings] = []
    if var settings = try? AppStoreSettings.section(in: data) {
      for index in settings.apps.indices {
        settings.apps[index].apiPrivateKeyFile = nil
        settings.apps[index].sharedSecretFile = nil
        settings.apps[index].rootCertificates = nil
      }
      stores.append(settings)
    }
    if var settings = try? GooglePlaySettings.section(in: data) {
      for index in settings.apps.indices { settings.apps[index].serviceAccountKeyFile = nil }
      stores.append(settings)
    }
    if var settings = try? AmazonSettings.section(in: data) {
      for index in settings.apps.indices { settings.apps[index].sharedSecretFile = nil }
      stores.append(settings)
    }
    // As `tollgate worker` reads it: every key checked against what the sections read (ConfigKeys).
    let sections: [any (StoreSettings & Decodable).Type] = [
      AppStoreSettings.self, GooglePlaySettings.self, AmazonSettings.self,
    ]
    _ = ListenAddress.problem(String(decoding: bytes, as: UTF8.self), key: "worker.listen")
    guard var configuration = try? WorkerConfiguration.decode(data, storeSections: sections) else { return }
    for index in configuration.webhooks.indices { configuration.webhooks[index].secretFile = nil }
    _ = configuration.problems(environment: ["TOLLGATE_FUZZ_SECRET": "secret"], stores: stores)
    _ = try? configuration.catalog.validated()
  }
}
