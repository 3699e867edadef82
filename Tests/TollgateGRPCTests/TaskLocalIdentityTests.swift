import GRPCCore
import GRPCInProcessTransport
import Testing
import TollgateCallers
import TollgateContract

@testable import TollgateGRPC

@Suite("gRPC door: the caller the interceptor let in reaches the handler (task-local)")
struct TaskLocalIdentityTests {
  @Test("Authenticate answers who the bearer is, whatever name and key the request carries")
  func authenticateAnswersTheBearer() async throws {
    try await withInProcessDoor { client, _ in
      var request = Tollgate_V1_AuthenticateRequest()
      request.caller = "ops"
      request.key = TestCallers.adminKey
      let reader = try await client.authenticate(request, metadata: TestCallers.bearer(TestCallers.readerKey))
      #expect(reader.caller == "reader")
      #expect(reader.scopes == ["read"])
      let both = try await client.authenticate(request, metadata: TestCallers.bearer(TestCallers.bothKey))
      #expect(both.caller == "both")
      #expect(both.scopes == ["read", "submit"])
      let nobody = await rpcError { try await client.authenticate(request) }
      #expect(nobody?.code == .unauthenticated)
    }
  }

  @Test("SubmitPurchase and GetSubmission run for the calling caller, calls in parallel each their own")
  func handlerSeesTheCaller() async throws {
    let handler = FakeEntitlementsHandler(submitDelay: .milliseconds(20))
    try await withInProcessDoor(handler: handler) { client, _ in
      try await withThrowingTaskGroup(of: (String, String).self) { group in
        for key in Array(repeating: [TestCallers.submitterKey, TestCallers.bothKey, TestCallers.adminKey], count: 4)
          .joined()
        {
          group.addTask {
            let answer = try await client.getSubmission(
              Tollgate_V1_GetSubmissionRequest(), metadata: TestCallers.bearer(key))
            return (key, answer.userID)
          }
        }
        let names = [TestCallers.submitterKey: "submitter", TestCallers.bothKey: "both", TestCallers.adminKey: "ops"]
        for try await (key, seen) in group {
          #expect(seen == names[key])
        }
      }
      var request = Tollgate_V1_SubmitPurchaseRequest()
      request.userID = "u"
      _ = try await client.submitPurchase(request, metadata: TestCallers.bearer(TestCallers.bothKey))
    }
    #expect(handler.submitters.withLock { $0 } == [CallerIdentity(name: "both", scopes: [.read, .submit])])
  }

  @Test("the service served without the interceptor refuses every call (no caller is not anyone)")
  func withoutInterceptorFailsClosed() async throws {
    let transport = InProcessTransport()
    let services = GRPCDoor.services(
      handler: FakeEntitlementsHandler(), gate: TestCallers.gate(access: .open), shutdown: DoorShutdown(),
      healthPollInterval: .seconds(1))
    try await withGRPCServer(transport: transport.server, services: services) { _ in
      try await withGRPCClient(transport: transport.client) { grpc in
        let client = Tollgate_V1_Entitlements.Client(wrapping: grpc)
        let error = await rpcError { try await client.isSubscriber(Tollgate_V1_IsSubscriberRequest()) }
        #expect(error?.code == .internalError)
      }
    }
  }
}
