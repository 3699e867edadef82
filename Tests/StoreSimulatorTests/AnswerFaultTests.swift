import AppStore
import AsyncHTTPClient
import Foundation
import StoreSimulator
import Testing

/// Every answer fault of `apple.api`, seen over real HTTP by the real API client and verifier.
@Suite("Store simulator: answer faults of the App Store Server API")
struct AnswerFaultTests {
  @Test("reset: the connection closes without an HTTP answer; the next request is answered")
  func reset() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .reset))
      let error = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      }
      #expect(error?.code == .transport)
      #expect(error?.httpStatus == nil)
      #expect(try await harness.status(id) == 1)
      #expect(harness.sim.appliedFaults.map(\.mode) == [.reset])
      #expect(harness.sim.appliedFaults.first?.request == "/sandbox/inApps/v1/subscriptions/\(id)")
    }
  }

  @Test("stall: no answer until the client's deadline; the cap closes the connection for a patient client")
  func stall() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .stall))
      let clock = ContinuousClock()
      var started = clock.now
      let timedOut = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client(timeout: .milliseconds(600)).getTransactionInfo(transactionId: id)
      }
      #expect(timedOut?.code == .transport)
      #expect(clock.now - started >= .milliseconds(600))
      #expect(clock.now - started < .seconds(5))

      // A client that waits longer than the cap sees the connection closed at the cap.
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .stall, delayMs: 300))
      started = clock.now
      let capped = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client(timeout: .seconds(10)).getTransactionInfo(transactionId: id)
      }
      #expect(capped?.code == .transport)
      #expect(clock.now - started >= .milliseconds(300))
      #expect(clock.now - started < .seconds(5))
      #expect(try await harness.status(id) == 1)
    }
  }

  @Test("html200 and empty200: a 200 the client cannot decode")
  func htmlAndEmpty() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .html200))
      let html = try await harness.get("/inApps/v1/subscriptions/\(id)")
      #expect(html.status == 200)
      #expect(html.contentType?.hasPrefix("text/html") == true)
      #expect(html.text.hasPrefix("<!DOCTYPE html>"))
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .empty200))
      let empty = try await harness.get("/inApps/v1/subscriptions/\(id)")
      #expect(empty.status == 200)
      #expect(empty.body.isEmpty)

      for mode in [FaultRule.Mode.html200, .empty200] {
        try harness.sim.addFault(FaultRule(target: "apple.api", mode: mode))
        let error = await harness.apiError { () async throws(AppStoreAPIError) in
          try await harness.client().getAllSubscriptionStatuses(transactionId: id)
        }
        #expect(error?.code == .invalidResponse, "\(mode)")
        #expect(error?.httpStatus == 200, "\(mode)")
      }
    }
  }

  @Test("truncatedJSON: the real answer cut to half its length")
  func truncated() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      let whole = try await harness.get("/inApps/v2/history/\(id)?sort=ASCENDING")
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .truncatedJSON))
      let cut = try await harness.get("/inApps/v2/history/\(id)?sort=ASCENDING")
      #expect(cut.status == 200)
      #expect(cut.body.count == whole.body.count / 2)
      #expect(cut.text.hasPrefix(#"{"appAppleId":"#))
      #expect(cut.json == nil)
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .truncatedJSON))
      let error = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client().getTransactionHistory(transactionId: id)
      }
      #expect(error?.code == .invalidResponse)
    }
  }

  @Test("badSignature: the answer decodes, but every signed payload in it fails verification")
  func badSignature() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .badSignature, count: 2))
      let statuses = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      let item = try unwrap(statuses.data?.first?.lastTransactions?.first)
      #expect(item.status == 1)
      #expect(harness.verifier.verifyTransaction(item.signedTransactionInfo ?? "").error?.code == .signatureMismatch)
      #expect(harness.verifier.verifyRenewalInfo(item.signedRenewalInfo ?? "").error?.code == .signatureMismatch)
      let history = try await harness.client().getTransactionHistory(transactionId: id)
      let signed = try unwrap(history.signedTransactions)
      #expect(signed.count == 1)
      #expect(signed.allSatisfy { harness.verifier.verifyTransaction($0).error?.code == .signatureMismatch })

      // Cleared: the same request verifies again.
      let clean = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      #expect(
        try harness.transaction(clean.data?.first?.lastTransactions?.first?.signedTransactionInfo).transactionId == id)
    }
  }

  @Test("unauthorized and notFound: Apple's 401 and 404 4040010 error bodies")
  func unauthorizedAndNotFound() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .unauthorized))
      let refused = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client().getTransactionInfo(transactionId: id)
      }
      #expect(refused?.code == .unauthorized)
      #expect(refused?.apiErrorCode == 4_010_000)

      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .notFound))
      let raw = try await harness.get("/inApps/v1/transactions/\(id)")
      #expect(raw.status == 404)
      #expect(raw.text == #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#)
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .notFound))
      let missing = await harness.apiError { () async throws(AppStoreAPIError) in
        try await harness.client().getTransactionInfo(transactionId: id)
      }
      #expect(missing?.code == .notFound)
      #expect(missing?.apiErrorCode == 4_040_010)
      #expect(try await harness.status(id) == 1)
    }
  }

  @Test("stale: the last validly signed answer for the same request, replayed byte for byte")
  func stale() async throws {
    try await Harness.run { harness in
      let id = try await harness.sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly"))
        .originalTransactionId
      let path = "/inApps/v1/subscriptions/\(id)"
      let before = try await harness.get(path)
      #expect(before.status == 200)
      try await harness.sim.advance(byMs: SimDuration.dayMs)
      try await harness.sim.refund(id)  // not asked for again: the remembered answer is the one above

      // A request never answered before is answered for real and leaves the rule in place.
      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .stale, count: 1))
      let history = try await harness.client().getTransactionHistory(transactionId: id)
      #expect(try harness.transaction(history.signedTransactions?.first).revocationDate != nil)
      #expect(harness.sim.activeFaults.map(\.mode) == [.stale])
      let replayed = try await harness.get(path)
      #expect(replayed.body == before.body)
      #expect(harness.sim.activeFaults.isEmpty)

      try harness.sim.addFault(FaultRule(target: "apple.api", mode: .stale, count: nil))
      let statuses = try await harness.client().getAllSubscriptionStatuses(transactionId: id)
      let item = try unwrap(statuses.data?.first?.lastTransactions?.first)
      #expect(item.status == 1, "the cached answer still says active")
      let transaction = try harness.transaction(item.signedTransactionInfo)
      #expect(transaction.revocationDate == nil)
      #expect(transaction.signedDate == Harness.startMs, "signed before the refund")
      harness.sim.clearFaults()
      #expect(try await harness.status(id) == 5)
    }
  }

  @Test("which modes a target takes, over Swift and the control API; the applied log")
  func validation() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      for mode in FaultRule.Mode.allCases {
        let api = FaultRule.modes(for: "apple.api").contains(mode)
        let receipt = FaultRule.modes(for: "apple.verifyReceipt").contains(mode)
        let notifications = FaultRule.modes(for: "apple.notifications").contains(mode)
        #expect(api || notifications, "\(mode) applies somewhere")
        #expect(!receipt || api, "\(mode)")
        #expect((try? sim.addFault(FaultRule(target: "apple.api", mode: mode))) != nil || !api)
        #expect((try? sim.addFault(FaultRule(target: "apple.api", mode: mode))) == nil || api)
      }
      sim.clearFaults()
      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "apple.verifyReceipt", mode: .badSignature))
      }
      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "apple.notifications", mode: .stall))
      }
      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "apple.api", mode: .stall, delayMs: 301_000))
      }

      let control = StoreSimulatorControlClient(baseURL: sim.baseURL, httpClient: .shared)
      let added = try await control.send("POST", "/sim/faults", json: ["target": "apple.api", "mode": "truncatedJSON"])
      #expect(added.isSuccess)
      #expect(added.body.contains("truncatedJSON"))
      let refused = try await control.send(
        "POST", "/sim/faults", json: ["target": "apple.notifications", "mode": "badSignature"])
      #expect(refused.status == 400)
      #expect(refused.body.contains("does not apply"))
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      _ = try await harness.get("/inApps/v1/transactions/\(id)")
      let applied = try await control.send("GET", "/sim/faults/applied")
      #expect(applied.body.contains(#""mode":"truncatedJSON""#))
      #expect(applied.body.contains("/sandbox/inApps/v1/transactions/\(id)"))
    }
  }
}
