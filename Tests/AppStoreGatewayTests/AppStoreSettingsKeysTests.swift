import AppStoreGateway
import Foundation
import Testing
import TollgateWorker

@Suite("The appStore section's keys")
struct AppStoreSettingsKeysTests {
  @Test("a key AppStoreSettings does not read is an error naming its path; the example file has none")
  func unknownKeys() throws {
    let json = """
      {"apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
       "appStore": [{"bundleId": "com.example.app", "apiPrivateKeyFile": "/etc/secret", "apiPrivateKeyFiles": "/etc/other"}]}
      """
    let configuration = try WorkerConfiguration.decode(Data(json.utf8), storeSections: [AppStoreSettings.self])
    #expect(configuration.keyProblems == ["appStore[0].apiPrivateKeyFiles is not a known key"])
    let settings = try #require(try AppStoreSettings.section(in: Data(json.utf8)))
    #expect(
      configuration.problems(environment: [:], stores: [settings]).contains(
        "appStore[0].apiPrivateKeyFiles is not a known key"))

    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/tollgate.example.json").standardized.path
    let example = try #require(FileManager.default.contents(atPath: path))
    #expect(try WorkerConfiguration.decode(example, storeSections: [AppStoreSettings.self]).keyProblems == [])
  }
}
