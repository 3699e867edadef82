import AppStore
import Testing
import TollgateWorker

@testable import AppStoreGateway

@Suite("App Store failures, classified")
struct AppleFailureTests {
  func kind(_ code: AppStoreAPIError.Code) -> StoreFailure.Kind {
    AppleFailure.store(AppStoreAPIError(code: code, message: "m")).classified.kind
  }

  @Test("today's classification, kept exactly (issue #14 revisits credentials and 404)")
  func classification() {
    #expect(kind(.rateLimited) == .transient)
    #expect(kind(.serverError) == .transient)
    #expect(kind(.transport) == .transient)
    #expect(kind(.invalidResponse) == .transient)
    #expect(kind(.unauthorized) == .transient)
    #expect(kind(.credentials) == .final)
    #expect(kind(.notFound) == .final)
    #expect(kind(.badRequest) == .final)
    #expect(AppleFailure.rejected("no").classified.kind == .final)
    #expect(AppleFailure.rejected("no").classified.message == "no")
  }

  @Test("Retry-After and the App Store's own description travel with the failure")
  func carriesDetails() {
    let error = AppStoreAPIError(code: .rateLimited, message: "slow down", httpStatus: 429, retryAfterMs: 7_000)
    let failure = AppleFailure.store(error).classified
    #expect(failure.retryAfterMs == 7_000)
    #expect(failure.message == error.description)
  }
}
