import Foundation
import GooglePlay
import StoreSimulator
import Testing

/// The `google.api`, `google.token` and `google.notifications` faults, as the production clients
/// see them.
@Suite("Store simulator, Google Play: faults")
struct StoreSimulatorGoogleFaultTests {
  @Test("google.api: 429 with Retry-After, 500, 404 in Google's error shape; then the real answer")
  func apiErrorFaults() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly")).purchaseToken
      let read = { _ = try await harness.subscriptionV2(token) }
      try sim.addFault(FaultRule(target: "google.api", mode: .rateLimit, count: 1, retryAfterSeconds: 7))
      await expectAPIError(.rateLimited, status: 429, reason: "rateLimitExceeded", read)
      do {
        try await read()
      }
      try sim.addFault(FaultRule(target: "google.api", mode: .rateLimit, count: 1, retryAfterSeconds: 7))
      do {
        try await read()
        Issue.record("no 429")
      } catch let error as AndroidPublisherError {
        #expect(error.retryAfterMs == 7_000 && error.isRetryable)
      }
      try sim.addFault(FaultRule(target: "google.api", mode: .error500))
      await expectAPIError(.serverError, status: 500, reason: "backendError", read)
      try sim.addFault(FaultRule(target: "google.api", mode: .notFound))
      await expectAPIError(.notFound, status: 404, reason: "purchaseTokenNotFound", read)
      try sim.addFault(FaultRule(target: "google.api", mode: .unauthorized))
      await expectAPIError(.unauthorized, status: 401, reason: "authError", read)
      try await read()
      #expect(sim.appliedFaults.filter { $0.target == "google.api" }.count == 5)
      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "google.api", mode: .badSignature))
      }
    }
  }

  @Test("google.api: html200 and truncatedJSON do not decode; stale replays the last answer")
  func apiBodyFaults() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly")).purchaseToken
      try sim.addFault(FaultRule(target: "google.api", mode: .html200))
      await #expect(throws: DecodingError.self) { _ = try await harness.subscriptionV2(token) }
      try sim.addFault(FaultRule(target: "google.api", mode: .truncatedJSON))
      await #expect(throws: DecodingError.self) { _ = try await harness.subscriptionV2(token) }
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .active)
      try await sim.googleCancel(token)
      try sim.addFault(FaultRule(target: "google.api", mode: .stale))
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .active)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .canceled)
    }
  }

  @Test("google.token: a 500 is transient for the token provider and the API client")
  func tokenFaults() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      let token = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly")).purchaseToken
      try sim.addFault(FaultRule(target: "google.token", mode: .error500))
      do {
        _ = try await harness.tokens.accessToken()
        Issue.record("no token error")
      } catch let error as GoogleAuthError {
        #expect(error.code == .unavailable && error.isTransient && error.httpStatus == 500)
      }
      try sim.addFault(FaultRule(target: "google.token", mode: .unauthorized))
      do {
        _ = try await harness.tokens.accessToken()
        Issue.record("no token error")
      } catch let error as GoogleAuthError {
        #expect(error.code == .unauthorizedClient && error.isOperatorError)
      }
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .active)
    }
  }

  @Test("google.notifications: drop, duplicate (same messageId) and a failed first attempt that is retried")
  func notificationFaults() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      try sim.addFault(FaultRule(target: "google.notifications", mode: .drop))
      _ = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
      #expect(try harness.pushes().isEmpty)
      #expect(sim.notifications.last?.state == "dropped")
      try sim.addFault(FaultRule(target: "google.notifications", mode: .duplicate))
      _ = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
      let pushes = try harness.pushes()
      #expect(pushes.count == 2)
      #expect(pushes[0].envelope.message?.messageId == pushes[1].envelope.message?.messageId)
      try sim.addFault(FaultRule(target: "google.notifications", mode: .error500))
      _ = try await sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
      #expect(try harness.pushes().count == 2)
      #expect(try await eventually { try harness.pushes().count == 3 })
      let claims = try await harness.authenticator().authenticate(authorization: try harness.pushes()[2].authorization)
        .get()
      #expect(claims.audiences == [GoogleHarness.audience])
    }
  }

  @Test("a receiver that refuses a push gets it again, with a freshly minted token")
  func receiverRefusalRetried() async throws {
    try await GoogleHarness.run(receiverReplies: [401, 200]) { harness in
      _ = try await harness.sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
      #expect(try await eventually { try harness.pushes().count == 2 })
      #expect(try await eventually { harness.sim.notifications.last?.state == "delivered" })
      #expect(harness.sim.notifications.last?.attempts.map(\.httpStatus) == [401, 200])
    }
  }
}
