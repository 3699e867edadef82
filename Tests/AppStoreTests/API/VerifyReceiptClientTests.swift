import AppStore
import AsyncHTTPClient
import Logging
import Testing
import TollgateTesting

@Suite("verifyReceipt routing over HTTP")
struct VerifyReceiptClientTests {
  func client(_ server: ScriptedHTTPServer, secret: String? = "s3cret") -> VerifyReceiptClient {
    VerifyReceiptClient(
      config: .init(
        productionURL: server.baseURL + "/production/verifyReceipt",
        sandboxURL: server.baseURL + "/sandbox/verifyReceipt",
        sharedSecret: secret, timeout: .seconds(5)),
      httpClient: .shared, logger: Logger(label: "test"))
  }

  /// Runs `body` against a scripted server, stopped after it (also when `body` throws).
  func withServer(_ body: (ScriptedHTTPServer) async throws -> Void) async throws {
    let server = try await ScriptedHTTPServer.start()
    do {
      try await body(server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  @Test("21007 from production is sent again to sandbox, with the same receipt and shared secret")
  func sandboxFallback() async throws {
    try await withServer { server in
      server.enqueue("POST", "/production/verifyReceipt", .json(200, ["status": 21007]))
      server.enqueue("POST", "/sandbox/verifyReceipt", .json(200, ["status": 0, "environment": "Sandbox"]))
      let outcome = try await client(server).verify(receiptData: "BASE64RECEIPT")
      #expect(outcome.endpoint == .sandbox)
      #expect(outcome.status == 0)
      #expect(server.recorded.map(\.path) == ["/production/verifyReceipt", "/sandbox/verifyReceipt"])
      for request in server.recorded {
        #expect(request.jsonBody?["receipt-data"] as? String == "BASE64RECEIPT")
        #expect(request.jsonBody?["password"] as? String == "s3cret")
      }
    }
  }

  @Test("21008 from sandbox is sent again to production")
  func productionFallback() async throws {
    try await withServer { server in
      server.enqueue("POST", "/sandbox/verifyReceipt", .json(200, ["status": 21008]))
      server.enqueue("POST", "/production/verifyReceipt", .json(200, ["status": 0]))
      let outcome = try await client(server).verify(receiptData: "R", startAt: .sandbox)
      #expect(outcome.endpoint == .production)
      #expect(outcome.status == 0)
    }
  }

  @Test("other statuses are returned as they are, without a second call")
  func otherStatuses() async throws {
    try await withServer { server in
      server.enqueue("POST", "/production/verifyReceipt", .json(200, ["status": 21004]))
      let outcome = try await client(server, secret: nil).verify(receiptData: "R")
      #expect(outcome.status == 21004)
      #expect(server.recorded.count == 1)
      #expect(server.recorded[0].jsonBody?["password"] == nil)
    }
  }

  @Test("HTTP 503 and 429 are retryable errors; an answer without a status is invalid")
  func httpFailures() async throws {
    try await withServer { server in
      server.enqueue("POST", "/production/verifyReceipt", .init(status: 503))
      server.enqueue("POST", "/production/verifyReceipt", .init(status: 429, headers: ["Retry-After": "10"]))
      server.enqueue("POST", "/production/verifyReceipt", .json(200, ["nope": true]))
      var codes: [AppStoreAPIError.Code] = []
      var retryAfter: [Int64?] = []
      for _ in 0..<3 {
        do {
          _ = try await client(server).verify(receiptData: "R")
        } catch let error as AppStoreAPIError {
          codes.append(error.code)
          retryAfter.append(error.retryAfterMs)
        }
      }
      #expect(codes == [.serverError, .rateLimited, .invalidResponse])
      #expect(retryAfter == [nil, 10_000, nil])
    }
  }
}
