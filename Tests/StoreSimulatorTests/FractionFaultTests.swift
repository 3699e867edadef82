import AppStore
import StoreSimulator
import Testing

/// A fault on a share of a target's requests (issue 24: one store call in twenty hangs).
@Suite("Store simulator: faults on a fraction of requests")
struct FractionFaultTests {
  @Test("fraction 0.2: every fifth request is faulted, the others are answered; count counts the faulted ones")
  func everyFifth() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: 2, fraction: 0.2))
      var faulted: [Bool] = []
      for _ in 0..<15 {
        let error = await harness.apiError { () async throws(AppStoreAPIError) in
          try await harness.client().getAllSubscriptionStatuses(transactionId: id)
        }
        faulted.append(error != nil)
      }
      let expected = (1...15).map { $0 == 5 || $0 == 10 }
      #expect(faulted == expected)
      #expect(harness.sim.appliedFaults.map(\.mode) == [.error500, .error500])
      #expect(harness.sim.activeFaults.isEmpty)
      for fraction in [0, -0.5, 1.5] {
        #expect(throws: (any Error).self) {
          try harness.sim.addFault(FaultRule(target: "apple.api", mode: .stall, fraction: fraction))
        }
      }
    }
  }
}
