import AmazonGateway
import Foundation
import Testing
import TollgateWorker

@Suite("The amazon section's keys")
struct AmazonSettingsKeysTests {
  @Test("a key AmazonSettings does not read is an error naming its path; the example file has none")
  func unknownKeys() throws {
    let json = """
      {"apps": [{"id": "kindle", "store": "amazon", "amazonAppId": "com.example.amazon"}],
       "amazon": [{"appPackageName": "com.example.amazon", "sharedSecretFile": "/etc/secret", "sharedSecretFiles": "/etc/other"}]}
      """
    let configuration = try WorkerConfiguration.decode(Data(json.utf8), storeSections: [AmazonSettings.self])
    #expect(configuration.keyProblems == ["amazon[0].sharedSecretFiles is not a known key"])
    let settings = try #require(try AmazonSettings.section(in: Data(json.utf8)))
    #expect(
      configuration.problems(environment: [:], stores: [settings]).contains(
        "amazon[0].sharedSecretFiles is not a known key"))

    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/tollgate.example.json").standardized.path
    let example = try #require(FileManager.default.contents(atPath: path))
    #expect(try WorkerConfiguration.decode(example, storeSections: [AmazonSettings.self]).keyProblems == [])
  }
}
