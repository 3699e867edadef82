import AppStore
import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

/// `tollgate inspect` as a support engineer runs it, on the public vectors in ../shared/vectors.
@Suite("tollgate inspect", .serialized)
struct InspectCommandTests {
  static let vectors = Vectors.directory + "/apple"

  func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test("a real sandbox transaction verifies against Apple's pinned roots found through TOLLGATE_APPLE_ROOTS")
  func realTransactionWithPinnedRoots() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let run = try await ChildProcess.runDetached(
      ["inspect", "apple-jws", Self.vectors + "/real-jws/mingos-sandbox-transaction-consumable-2025.jws"],
      environment: ["TOLLGATE_APPLE_ROOTS": Self.vectors + "/roots"])
    #expect(run.status == 0, "\(run.stderr)")
    let document = try json(run.stdout)
    #expect(document["verdict"] as? String == "valid")
    #expect(document["error"] is NSNull)
    let payload = try #require(document["payload"] as? [String: Any])
    #expect(payload["environment"] as? String == "Sandbox")
  }

  @Test(
    "a notification verifies with the test root; in production with appAppleId 1234 it is invalid_environment (exit 1)")
  func notificationEnvironments() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let file = Self.vectors + "/apple-lib/mock_signed_data/testNotification"
    let root = Self.vectors + "/apple-lib/certs/testCA.der"
    let sandbox = try await ChildProcess.runDetached([
      "inspect", "apple-notification", file, "--root", root, "--environment", "sandbox",
    ])
    #expect(sandbox.status == 0)
    let payload = try #require(try json(sandbox.stdout)["payload"] as? [String: Any])
    #expect(payload["notificationType"] as? String == "TEST")

    let production = try await ChildProcess.runDetached(
      ["inspect", "apple-notification", file, "--root", root, "--environment", "production", "--app-apple-id", "1234"])
    #expect(production.status == 1)
    #expect(try json(production.stdout)["error"] as? String == "invalid_environment")

    let wrongRoot = try await ChildProcess.runDetached([
      "inspect", "apple-notification", file, "--root", Self.vectors + "/roots/AppleRootCA-G3.cer",
    ])
    #expect(wrongRoot.status == 1)
    #expect(try json(wrongRoot.stdout)["verdict"] as? String == "invalid")
  }

  @Test("a tampered payload is invalid, and --at after the test chain expires makes a good one invalid")
  func tamperedAndExpired() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let root = Self.vectors + "/apple-lib/certs/testCA.der"
    let original = try String(
      contentsOfFile: Self.vectors + "/apple-lib/mock_signed_data/transactionInfo", encoding: .utf8
    )
    .trimmingCharacters(in: .whitespacesAndNewlines)
    var parts = original.split(separator: ".").map(String.init)
    let payload = try #require(Data(base64Encoded: Self.padded(parts[1])))
    let changed = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "com.example", with: "com.evil.xx")
    parts[1] = Data(changed.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let forged = dir.file("forged.jws")
    try parts.joined(separator: ".").write(toFile: forged, atomically: true, encoding: .utf8)
    let tampered = try await ChildProcess.runDetached([
      "inspect", "apple-jws", forged, "--root", root, "--bundle-id", "com.evil.xx",
    ])
    #expect(tampered.status == 1)
    #expect(try json(tampered.stdout)["verdict"] as? String == "invalid")

    let good = Self.vectors + "/apple-lib/mock_signed_data/transactionInfo"
    #expect(try await ChildProcess.runDetached(["inspect", "apple-jws", good, "--root", root]).status == 0)
    let expired = try await ChildProcess.runDetached([
      "inspect", "apple-jws", good, "--root", root, "--at", "2280946846000",
    ])
    #expect(expired.status == 1)
  }

  @Test("a legacy receipt parses and its PKCS#7 signature checks against Apple Inc. Root")
  func receipt() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let run = try await ChildProcess.runDetached(
      [
        "inspect", "apple-receipt", Self.vectors + "/receipts/receipt-production.b64", "--root",
        Self.vectors + "/roots/AppleIncRootCertificate.cer",
      ])
    #expect(run.status == 0)
    let payload = try #require(try json(run.stdout)["payload"] as? [String: Any])
    #expect(payload["bundleId"] as? String == "org.getpure.pure-iphone")
    let wrong = try await ChildProcess.runDetached(
      [
        "inspect", "apple-receipt", Self.vectors + "/receipts/receipt-production.b64", "--root",
        Self.vectors + "/roots/AppleRootCA-G3.cer",
      ])
    #expect(wrong.status == 1)
  }

  @Test("unreadable input (not a file, not a JWS, not JSON, not base64), missing roots and bad usage exit 2")
  func exitTwo() async throws {
    #expect(try await ChildProcess.runDetached(["inspect", "apple-jws", "/nonexistent/file"]).status == 2)
    #expect(try await ChildProcess.runDetached(["inspect", "apple-jws", "x", "--environment", "mars"]).status == 2)
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    func write(_ name: String, _ text: String) throws -> String {
      try text.write(toFile: dir.file(name), atomically: true, encoding: .utf8)
      return dir.file(name)
    }
    let unreadable: [(command: String, text: String, reason: String)] = [
      ("apple-jws", "a.b.c", "not a compact JWS"),
      ("apple-jws", "not a jws at all", "not a compact JWS"),
      (
        "apple-jws",
        Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Array("hello".utf8)) + ".c2ln",
        "payload is not JSON"
      ),
      ("apple-notification", #"{"notificationType": "TEST"}"#, "without a signedPayload"),
      ("apple-notification", "neither json nor a jws", "not a compact JWS"),
      ("apple-receipt", "%%% not base64 %%%", "not base64"),
      ("apple-receipt", "aGVsbG8gd29ybGQ=", "not a PKCS#7 app receipt"),
    ]
    for (index, input) in unreadable.enumerated() {
      let run = try await ChildProcess.runDetached(["inspect", input.command, try write("input-\(index)", input.text)])
      #expect(run.status == 2, "\(input)")
      #expect(run.stderr.contains(input.reason), "\(input): \(run.stderr)")
      #expect(run.stdout.isEmpty)
    }

    // A well-formed production JWS, with an override directory that holds no Apple root.
    let key = try P256PrivateKey.generate()
    let payload =
      #"{"bundleId":"com.example","environment":"Production","transactionId":"1","signedDate":1700000000000}"#
    let jws = try JWS.signES256(header: ["x5c": ["AAAA", "AAAA", "AAAA"]], payloadJSON: Array(payload.utf8), key: key)
    try FileManager.default.createDirectory(atPath: dir.file("empty"), withIntermediateDirectories: true)
    let noRoots = try await ChildProcess.runDetached(
      ["inspect", "apple-jws", try write("production.jws", jws)],
      environment: ["TOLLGATE_APPLE_ROOTS": dir.file("empty")])
    #expect(noRoots.status == 2)
    #expect(noRoots.stderr.contains("no Apple root certificates found"))
  }

  @Test("without TOLLGATE_APPLE_ROOTS the bundled Apple roots verify a real sandbox transaction")
  func bundledRoots() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let run = try await ChildProcess.runDetached(
      ["inspect", "apple-jws", Self.vectors + "/real-jws/mingos-sandbox-transaction-consumable-2025.jws"],
      environment: ["TOLLGATE_APPLE_ROOTS": nil])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try json(run.stdout)["verdict"] as? String == "valid")
  }

  @Test("an Xcode or local-testing payload decodes without Apple's roots, as Apple's library does")
  func xcodeWithoutRoots() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try FileManager.default.createDirectory(atPath: dir.file("empty"), withIntermediateDirectories: true)
    let key = try P256PrivateKey.generate()
    for (environment, flag) in [("Xcode", "xcode"), ("LocalTesting", "local-testing")] {
      let payload = """
        {"bundleId":"com.example.xcode","environment":"\(environment)","transactionId":"0","originalTransactionId":"0",\
        "productId":"pass.premium","signedDate":1697679936056,"purchaseDate":1697679936049,"type":"Auto-Renewable Subscription"}
        """
      let jws = try JWS.signES256(header: ["kid": "Apple_Xcode_Key"], payloadJSON: Array(payload.utf8), key: key)
      try jws.write(toFile: dir.file("\(flag).jws"), atomically: true, encoding: .utf8)
      // An override directory with no roots in it: loading roots would fail, so none are loaded.
      let run = try await ChildProcess.runDetached(
        ["inspect", "apple-jws", dir.file("\(flag).jws"), "--environment", flag],
        environment: ["TOLLGATE_APPLE_ROOTS": dir.file("empty")])
      #expect(run.status == 0, "\(flag): \(run.stderr)")
      let document = try json(run.stdout)
      #expect(document["verdict"] as? String == "valid")
      #expect((document["payload"] as? [String: Any])?["productId"] as? String == "pass.premium")
    }
  }

  static func padded(_ base64url: String) -> String {
    var text = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    return text
  }
}
