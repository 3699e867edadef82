import GRPCCore
import Testing
import TollgateCallers
import TollgateContract

@testable import TollgateGRPC

@Suite("gRPC door: error codes to gRPC status codes (docs/grpc.md's table)")
struct GRPCStatusMappingTests {
  @Test(
    "every ErrorCode maps to its status code",
    arguments: [
      (Tollgate_V1_ErrorCode.invalidArgument, RPCError.Code.invalidArgument),
      (.notFound, .notFound), (.unauthenticated, .unauthenticated), (.permissionDenied, .permissionDenied),
      (.resourceExhausted, .resourceExhausted), (.unavailable, .unavailable), (.deadlineExceeded, .deadlineExceeded),
      (.internal, .internalError), (.unspecified, .unknown),
    ])
  func codes(_ code: Tollgate_V1_ErrorCode, _ status: RPCError.Code) throws {
    let error = GRPCStatusMapping.rpcError(Tollgate_V1_Error(code, "why"))
    #expect(error.code == status)
    #expect(error.message == "why")
    // The trailer carries the name the proto's JSON mapping gives the code.
    var message = Tollgate_V1_Error()
    message.code = code
    let json = try message.jsonString()
    let name = error.metadata[stringValues: GRPCStatusMapping.errorCodeKey].map { $0 }
    #expect(name == [code.name])
    if code != .unspecified { #expect(json == "{\"code\":\"\(code.name)\"}") }
  }

  @Test("refusals: unauthenticated, outside the scopes, a blocked source")
  func refusals() {
    #expect(GRPCStatusMapping.rpcError(CallerRefusal(.unauthenticated, "m")).code == .unauthenticated)
    #expect(GRPCStatusMapping.rpcError(CallerRefusal(.permissionDenied(needs: .admin), "m")).code == .permissionDenied)
    #expect(
      GRPCStatusMapping.rpcError(CallerRefusal(.sourceBlocked(retryAfterSeconds: 3), "m")).code == .resourceExhausted)
  }

  @Test("a response without an error, or with code 0, passes; one with an error fails the call")
  func check() async throws {
    try await withInProcessDoor { client, _ in
      let reader = TestCallers.bearer(TestCallers.readerKey)
      var request = Tollgate_V1_GetSubscriptionRequest()
      request.userID = "someone"
      let found = try await client.getSubscription(request, metadata: reader)
      #expect(found.userID == "someone")
      request.userID = "nobody"
      let missing = await rpcError { try await client.getSubscription(request, metadata: reader) }
      #expect(missing?.code == .notFound)
      #expect(missing?.message == "no subscription for this user")
      #expect(missing?.metadata[stringValues: "tollgate-error-code"].map { $0 } == ["ERROR_CODE_NOT_FOUND"])
      let invalid = await rpcError {
        try await client.isSubscriber(Tollgate_V1_IsSubscriberRequest(), metadata: reader)
      }
      #expect(invalid?.code == .invalidArgument)
    }
    var response = Tollgate_V1_IsSubscriberResponse()
    response.error = Tollgate_V1_Error()
    #expect(throws: Never.self) { try GRPCStatusMapping.check(response) }
  }
}
