import AmazonAppstore
import AsyncHTTPClient
import Foundation
import Logging
import Testing
import TollgateTesting

@Suite("RVS client", .serialized)
struct RVSClientTests {
  /// A shared secret with characters a path must escape.
  static let secret = "2:smXBjZkWCxDMSBvQ8HBGsUS1PK3jvVc8tuTjLNfPHfYAga6WaDzXJPoWpfemXaHg/x+y="
  static let secretSegment = "2%3AsmXBjZkWCxDMSBvQ8HBGsUS1PK3jvVc8tuTjLNfPHfYAga6WaDzXJPoWpfemXaHg%2Fx%2By%3D"
  static let userId = "LRyD0FfW_3zeOlfJyxpVll-Z1rKn6dSf9xD3mUMSFg0="
  static let userSegment = "LRyD0FfW_3zeOlfJyxpVll-Z1rKn6dSf9xD3mUMSFg0%3D"
  /// A real receipt id shape: `#`, `=` and `:`.
  static let receiptId = "M3qQCAiytxUzm3G05OworddJDiSi6ijXQGRFSK#AD=:1:11"
  static let receiptSegment = "M3qQCAiytxUzm3G05OworddJDiSi6ijXQGRFSK%23AD%3D%3A1%3A11"
  static let path =
    "/version/1.0/verifyReceiptId/developer/\(secretSegment)/user/\(userSegment)/receiptId/\(receiptSegment)"

  static func withClient(_ body: (RVSClient, ScriptedHTTPServer, RecordingLog) async throws -> Void) async throws {
    let server = try await ScriptedHTTPServer.start()
    let log = RecordingLog()
    let client = RVSClient(
      config: RVSConfig(
        productionBaseURL: server.baseURL + "/", sandboxBaseURL: server.baseURL + "/sandbox", timeout: .seconds(5)),
      httpClient: .shared, logger: log.logger("test.amazon"))
    do {
      try await body(client, server, log)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  static func failure(_ client: RVSClient, sandbox: Bool = false) async -> RVSError? {
    do {
      _ = try await client.verifyReceiptId(
        sharedSecret: secret, userId: userId, receiptId: receiptId, sandbox: sandbox)
      return nil
    } catch {
      return error
    }
  }

  @Test("GET on the documented path, every segment percent-encoded; the body comes back as sent")
  func path() async throws {
    try await Self.withClient { client, server, _ in
      server.enqueue("GET", Self.path, .json(200, ["receiptId": Self.receiptId, "productType": "ENTITLED"]))
      server.enqueue("GET", "/sandbox" + Self.path, .json(200, ["receiptId": Self.receiptId, "testTransaction": true]))
      let body = try await client.verifyReceiptId(
        sharedSecret: Self.secret, userId: Self.userId, receiptId: Self.receiptId, sandbox: false)
      let receipt = try JSONDecoder().decode(RVSReceipt.self, from: body)
      #expect(receipt.receiptId == Self.receiptId)
      #expect(receipt.typedProductType == .entitled)
      let sandboxBody = try await client.verifyReceiptId(
        sharedSecret: Self.secret, userId: Self.userId, receiptId: Self.receiptId, sandbox: true)
      #expect(try JSONDecoder().decode(RVSReceipt.self, from: sandboxBody).testTransaction == true)
      let recorded = server.recorded
      #expect(recorded.map(\.path) == [Self.path, "/sandbox" + Self.path])
      #expect(recorded.allSatisfy { $0.method == "GET" })
    }
  }

  static let statuses: [(Int, String)] = [
    (400, "invalid_receipt"), (410, "receipt_no_longer_valid"), (429, "throttled"), (496, "invalid_shared_secret"),
    (497, "invalid_user_id"), (500, "server_error"), (502, "server_error"), (503, "server_error"),
    (504, "server_error"), (404, "unexpected_status"), (401, "unexpected_status"),
  ]

  @Test("each documented status is its error code; the transient ones say so; the secret appears nowhere")
  func statusCodes() async throws {
    try await Self.withClient { client, server, log in
      for (status, _) in Self.statuses {
        // An error body that (absurdly) echoes the secret must not carry it into the error.
        server.enqueue(
          "GET", Self.path, .json(status, ["message": "bad secret \(Self.secret)"], headers: ["Retry-After": "7"]))
      }
      for (status, code) in Self.statuses {
        let error = try #require(await Self.failure(client))
        #expect(error.code.description == code, "HTTP \(status)")
        #expect(error.httpStatus == status)
        #expect(error.isTransient == [429, 500, 502, 503, 504].contains(status), "HTTP \(status)")
        for text in [error.description, error.message, "\(error)", String(reflecting: error)] {
          #expect(!text.contains(Self.secret))
          #expect(!text.contains(Self.secretSegment))
        }
        if status == 429 { #expect(error.retryAfterMs == 7_000) }
      }
      #expect(!log.text.isEmpty)
      #expect(!log.text.contains(Self.secret))
      #expect(!log.text.contains(Self.secretSegment))
      // The receipt id is logged shortened (its first 12 characters), never whole.
      #expect(log.text.contains("/receiptId/\(Self.receiptId.prefix(12))%E2%80%A6"))
      #expect(!log.text.contains(Self.receiptSegment))
    }
  }

  @Test(
    "the vectors' error bodies classify by status, Amazon's message kept",
    arguments: [
      ("aporat-rvs/rvs-error-503-body.json", 503, "server_error"),
      ("aporat-rvs/rvs-error-body-documented-status.json", 496, "invalid_shared_secret"),
      ("aporat-rvs/rvs-error-body-documented-status.json", 410, "receipt_no_longer_valid"),
      ("go-iap/rvs-http504-timeout-body.json", 504, "server_error"),
    ])
  func vectorBodies(_ file: String, _ status: Int, _ code: String) async throws {
    try #require(Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage))
    let body = Array(try AmazonVectors.data(file))
    try await Self.withClient { client, server, _ in
      server.enqueue("GET", Self.path, .init(status: status, headers: ["Content-Type": "application/json"], body: body))
      let error = try #require(await Self.failure(client))
      #expect(error.code.description == code)
      let amazonMessage = (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["message"] as? String
      let said = try #require(amazonMessage)
      #expect(error.message.contains(said))
    }
  }

  @Test("a 200 that is not a JSON object is an invalid response; no server is transport; neither shows the secret")
  func invalidAndTransport() async throws {
    try await Self.withClient { client, server, _ in
      server.enqueue("GET", Self.path, .init(status: 200, body: Array("<html>".utf8)))
      let invalid = try #require(await Self.failure(client))
      #expect(invalid.code == .invalidResponse)
    }
    let closed = RVSClient(
      config: RVSConfig(productionBaseURL: "http://127.0.0.1:1", timeout: .seconds(2)), httpClient: .shared,
      logger: Logger(label: "test.amazon"))
    let transport = try #require(await Self.failure(closed))
    #expect(transport.code == .transport)
    #expect(transport.isTransient)
    #expect(!"\(transport) \(String(describing: transport.cause))".contains(Self.secret))
    #expect(!"\(String(describing: transport.cause))".contains(Self.secretSegment))
  }
}
