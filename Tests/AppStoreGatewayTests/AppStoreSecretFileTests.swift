import AppStoreGateway
import Foundation
import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker

/// The App Store's secrets from a file or the environment (issue 29): the API key and the
/// verifyReceipt shared secret, each exactly one of its …Env / …File pair.
@Suite("The appStore section's secrets: …Env or …File")
struct AppStoreSecretFileTests {
  static let catalog = ProductCatalog(apps: [AppConfig(id: "ios", store: .appStore, bundleId: "com.example.app")])
  static let identity = #""bundleId": "com.example.app", "environment": "sandbox", "apiKeyId": "K", "apiIssuerId": "I""#

  static func settings(_ fields: String) throws -> AppStoreSettings {
    let json = #"{"appStore": [{\#(identity), \#(fields)}]}"#
    return try #require(try AppStoreSettings.section(in: Data(json.utf8)))
  }

  @Test("sharedSecretFile and apiPrivateKeyFile are read under $CREDENTIALS_DIRECTORY, without the trailing line break")
  func fromFiles() throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-apple-secret")
    defer { dir.remove() }
    try Data("0123abcd\n".utf8).write(to: URL(fileURLWithPath: dir.file("shared")))
    try Data("-----BEGIN PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: dir.file("key.p8")))
    let settings = try Self.settings(#""apiPrivateKeyFile": "key.p8", "sharedSecretFile": "shared""#)
    let environment = ["CREDENTIALS_DIRECTORY": dir.path]
    #expect(settings.apps[0].sharedSecret(environment: environment) == "0123abcd")
    #expect(settings.apps[0].apiPrivateKeyPEM(environment: environment) == "-----BEGIN PRIVATE KEY-----")
    #expect(settings.problems(catalog: Self.catalog, environment: environment) == [])
    #expect(!settings.problems(catalog: Self.catalog, environment: [:]).isEmpty, "not found without the directory")
  }

  @Test("both of a pair is an error naming both keys")
  func both() throws {
    let settings = try Self.settings(
      #""apiPrivateKeyFile": "/k.p8", "apiPrivateKeyEnv": "KEY", "sharedSecretEnv": "S", "sharedSecretFile": "/s""#)
    let problems = settings.problems(catalog: Self.catalog, environment: ["KEY": "k", "S": "s"])
    #expect(
      problems == [
        "appStore[0] (com.example.app): apiPrivateKeyEnv and apiPrivateKeyFile are both set: keep one",
        "appStore[0] (com.example.app): sharedSecretEnv and sharedSecretFile are both set: keep one",
      ])
  }
}
