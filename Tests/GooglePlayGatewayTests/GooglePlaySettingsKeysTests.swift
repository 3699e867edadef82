import Foundation
import GooglePlayGateway
import Testing
import TollgateWorker

@Suite("The googlePlay section's keys")
struct GooglePlaySettingsKeysTests {
  @Test("a key GooglePlaySettings does not read is an error naming its path; the example file has none")
  func unknownKeys() throws {
    let json = """
      {"apps": [{"id": "android", "store": "google_play", "packageName": "com.example.android"}],
       "googlePlay": [{"packageName": "com.example.android", "serviceAccountKeyFile": "/etc/secret", "serviceAccountKeyFiles": "/etc/other"}]}
      """
    let configuration = try WorkerConfiguration.decode(Data(json.utf8), storeSections: [GooglePlaySettings.self])
    #expect(configuration.keyProblems == ["googlePlay[0].serviceAccountKeyFiles is not a known key"])
    let settings = try #require(try GooglePlaySettings.section(in: Data(json.utf8)))
    #expect(
      configuration.problems(environment: [:], stores: [settings]).contains(
        "googlePlay[0].serviceAccountKeyFiles is not a known key"))

    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/tollgate.example.json").standardized.path
    let example = try #require(FileManager.default.contents(atPath: path))
    #expect(try WorkerConfiguration.decode(example, storeSections: [GooglePlaySettings.self]).keyProblems == [])
  }
}
