import AppStore
import AsyncHTTPClient
import Foundation
import Logging
import Testing
import TollgateTesting

@Suite("App Store Server API client over HTTP")
struct AppStoreServerAPIClientTests {
  static let vectors = Vectors.directory + "/apple/apple-lib/models"

  func withClient(
    timeout: Duration = .seconds(5), _ body: (AppStoreServerAPIClient, ScriptedHTTPServer) async throws -> Void
  ) async throws {
    let server = try await ScriptedHTTPServer.start()
    let client = AppStoreServerAPIClient(
      config: AppStoreServerAPIConfig(baseURL: server.baseURL + "/", timeout: timeout), httpClient: .shared,
      bearerToken: { "test-token" }, logger: Logger(label: "test"))
    do {
      try await body(client, server)
    } catch let error as AppStoreAPIError {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  func vector(_ name: String) throws -> ScriptedHTTPServer.Reply? {
    guard let data = FileManager.default.contents(atPath: "\(Self.vectors)/\(name)") else { return nil }
    return ScriptedHTTPServer.Reply(status: 200, headers: ["Content-Type": "application/json"], body: Array(data))
  }

  @Test("Get All Subscription Statuses decodes Apple's sample answer and sends the bearer token")
  func statuses() async throws {
    guard let reply = try vector("getAllSubscriptionStatusesResponse.json") else {
      print("skipped: ../shared/vectors is absent")
      return
    }
    try await withClient { client, server in
      server.enqueue("GET", "/inApps/v1/subscriptions/1000", reply)
      let response = try await client.getAllSubscriptionStatuses(transactionId: "1000")
      #expect(response.environment == "LocalTesting")
      #expect(response.appAppleId == 5_454_545)
      #expect(response.data?.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
      #expect(response.data?[0].lastTransactions?.map(\.status) == [1, 5])
      #expect(response.data?[0].lastTransactions?.map(\.originalTransactionId) == ["3749183", "5314314134"])
      let request = try #require(server.recorded.first)
      #expect(request.headers["authorization"] == "Bearer test-token")
    }
  }

  @Test("transaction history follows revision while hasMore, in ascending order")
  func historyPagination() async throws {
    try await withClient { client, server in
      server.enqueue(
        "GET", "/inApps/v2/history/42",
        .json(200, ["revision": "r1", "hasMore": true, "signedTransactions": ["a", "b"], "environment": "Sandbox"]))
      server.enqueue(
        "GET", "/inApps/v2/history/42", .json(200, ["revision": "r2", "hasMore": false, "signedTransactions": ["c"]]))
      let all = try await client.getAllTransactions(transactionId: "42")
      #expect(all == ["a", "b", "c"])
      let queries = server.recorded.map(\.query)
      #expect(queries == ["sort=ASCENDING", "sort=ASCENDING&revision=r1"])
    }
  }

  @Test(
    "each HTTP failure becomes a typed error the worker can act on",
    arguments: [
      (401, [String: String](), AppStoreAPIError.Code.unauthorized, true, nil as Int64?),
      (404, [:], .notFound, false, nil),
      (429, ["Retry-After": "3"], .rateLimited, true, 3_000),
      (500, [:], .serverError, true, nil),
      (503, [:], .serverError, true, nil),
      (400, [:], .badRequest, false, nil),
    ])
  func failures(
    status: Int, headers: [String: String], code: AppStoreAPIError.Code, retryable: Bool, retryAfter: Int64?
  )
    async throws
  {
    try await withClient { client, server in
      server.enqueue(
        "GET", "/inApps/v1/transactions/7",
        .json(status, ["errorCode": status * 10_000, "errorMessage": "scripted"], headers: headers))
      do {
        _ = try await client.getTransactionInfo(transactionId: "7")
        Issue.record("expected \(code)")
      } catch let error as AppStoreAPIError {
        #expect(error.code == code)
        #expect(error.isRetryable == retryable)
        #expect(error.httpStatus == status)
        #expect(error.apiErrorCode == status * 10_000)
        #expect(error.retryAfterMs == retryAfter)
      }
    }
  }

  @Test("Apple's documented error bodies decode: 4040010 not found, 5000000 internal, unknown 9990000")
  func appleErrorBodies() async throws {
    guard let notFound = try vector("transactionIdNotFoundError.json"), let general = try vector("apiException.json"),
      let unknown = try vector("apiUnknownError.json")
    else {
      print("skipped: ../shared/vectors is absent")
      return
    }
    try await withClient { client, server in
      for (status, reply) in [(404, notFound), (500, general), (400, unknown)] {
        var reply = reply
        reply.status = status
        server.enqueue("GET", "/inApps/v1/lookup/ORDER", reply)
      }
      var codes: [Int?] = []
      for _ in 0..<3 {
        do {
          _ = try await client.lookUpOrderId("ORDER")
        } catch let error as AppStoreAPIError {
          codes.append(error.apiErrorCode)
        }
      }
      #expect(codes == [4_040_010, 5_000_000, 9_990_000])
    }
  }

  @Test("no server, or one slower than the timeout, is a retryable transport error")
  func transport() async throws {
    let client = AppStoreServerAPIClient(
      config: AppStoreServerAPIConfig(baseURL: "http://127.0.0.1:1", timeout: .seconds(2)), httpClient: .shared,
      bearerToken: { "t" }, logger: Logger(label: "test"))
    do {
      _ = try await client.getTransactionInfo(transactionId: "1")
      Issue.record("expected a transport error")
    } catch {
      #expect(error.code == .transport)
      #expect(error.isRetryable)
    }
    try await withClient(timeout: .milliseconds(200)) { client, server in
      server.enqueue("GET", "/inApps/v1/transactions/1", .json(200, ["signedTransactionInfo": "x"], delay: .seconds(2)))
      do {
        _ = try await client.getTransactionInfo(transactionId: "1")
        Issue.record("expected a timeout")
      } catch let error as AppStoreAPIError {
        #expect(error.code == .transport)
      }
    }
  }

  @Test("a token that cannot be made is a credentials error, and nothing is sent")
  func credentials() async throws {
    struct NoKey: Error {}
    let server = try await ScriptedHTTPServer.start()
    let client = AppStoreServerAPIClient(
      config: AppStoreServerAPIConfig(baseURL: server.baseURL), httpClient: .shared, bearerToken: { throw NoKey() },
      logger: Logger(label: "test"))
    do {
      _ = try await client.getTransactionInfo(transactionId: "1")
      Issue.record("expected a credentials error")
    } catch {
      #expect(error.code == .credentials)
    }
    #expect(server.recorded.isEmpty)
    await server.stop()
  }
}
