import AppStore
import Testing
import TollgateWorker

@testable import AppStoreGateway

@Suite("App Store failures, classified")
struct AppleFailureTests {
  func kind(_ code: AppStoreAPIError.Code) -> StoreFailure.Kind {
    AppleFailure.store(AppStoreAPIError(code: code, message: "m")).classified.kind
  }

  @Test("Apple's trouble is retried, our credentials are the operator's, a 404 is not yet a no, a bad request is")
  func classification() {
    #expect(kind(.rateLimited) == .transient)
    #expect(kind(.serverError) == .transient)
    #expect(kind(.transport) == .transient)
    #expect(kind(.invalidResponse) == .transient)
    #expect(kind(.unauthorized) == .needsOperator)
    #expect(kind(.credentials) == .needsOperator)
    #expect(kind(.notFound) == .notFound)
    #expect(kind(.badRequest) == .final)
    #expect(AppleFailure.rejected("no").classified.kind == .final)
    #expect(AppleFailure.rejected("no").classified.message == "no")
    #expect(AppleFailure.misconfigured("21004").classified.kind == .needsOperator)
  }

  @Test("Retry-After and the App Store's own description travel with the failure")
  func carriesDetails() {
    let error = AppStoreAPIError(code: .rateLimited, message: "slow down", httpStatus: 429, retryAfterMs: 7_000)
    let failure = AppleFailure.store(error).classified
    #expect(failure.retryAfterMs == 7_000)
    #expect(failure.message == error.description)
  }
}
