import AppStore
import AsyncHTTPClient
import Foundation
import NIOCore
import StoreSimulator
import Testing

/// The simulator's request log: how often a client read each purchase, and when (issue 26: two
/// workers make one store call per due check).
@Suite("Store simulator: the request log")
struct RequestLogTests {
  @Test("every store request is logged with its target, path, virtual time and fault; DELETE clears the log")
  func logsEveryRequest() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      #expect(sim.storeRequests.isEmpty, "a purchase is no store request")
      _ = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      try await sim.advance(byMs: 3_600_000)
      try sim.addFault(FaultRule(target: "apple.api", mode: .error500))
      let failed = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client().getTransactionInfo(transactionId: id)
      }
      #expect(failed != nil)

      let requests = sim.storeRequests
      #expect(requests.map(\.target) == ["apple.api", "apple.api"])
      #expect(
        requests.map(\.request) == [
          "/sandbox/inApps/v1/subscriptions/\(id)", "/sandbox/inApps/v1/transactions/\(id)",
        ])
      #expect(requests.map(\.virtualTimeMs) == [Harness.startMs, Harness.startMs + 3_600_000])
      #expect(requests.map(\.fault) == [nil, .error500])
      #expect(requests.allSatisfy { $0.realTimeMs > 0 })

      // Over the control API too.
      let listed = try await Self.send("GET", sim.baseURL + "/sim/requests")
      let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
      #expect(items.compactMap { $0["request"] as? String } == requests.map(\.request))
      #expect(items.last?["fault"] as? String == "error500")
      let cleared = try await Self.send("DELETE", sim.baseURL + "/sim/requests")
      #expect(cleared == "[]")
      #expect(sim.storeRequests.isEmpty)
      _ = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      #expect(sim.storeRequests.count == 1)
      sim.clearStoreRequests()
      #expect(sim.storeRequests.isEmpty)
    }
  }

  static func send(_ method: String, _ url: String) async throws -> String {
    var request = HTTPClientRequest(url: url)
    request.method = .init(rawValue: method)
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
    let body = try await response.body.collect(upTo: 1 << 20)
    return String(buffer: body)
  }
}
