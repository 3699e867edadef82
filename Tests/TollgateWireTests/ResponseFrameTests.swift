import NIOCore
import Testing
import TollgateContract
import TollgateTesting
import TollgateWire

@Suite("Response frames")
struct ResponseFrameTests {
  @Test(
    "encoding matches the golden bytes for every status",
    arguments: [
      ("response-service-failed.hex", RPCStatus.serviceFailed, UInt32(9), UInt32(5)),
      ("response-too-many-pending.hex", RPCStatus.tooManyPending, UInt32(2), UInt32(0x0102_0304)),
    ])
  func emptyPayloadStatuses(file: String, status: RPCStatus, methodIndex: UInt32, requestId: UInt32) throws {
    var buffer = ByteBuffer()
    buffer.writeResponseFrame(
      ResponseFrame(status: status, methodIndex: methodIndex, requestId: requestId, payload: ByteBuffer()))
    #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes(file)))
  }

  @Test("a success frame with an IsSubscriberResponse matches the golden bytes")
  func successFrame() throws {
    var message = Tollgate_V1_IsSubscriberResponse()
    message.active = true
    message.expiresAtMs = 1_700_000_000_000
    message.state = .active
    message.willRenew = true
    message.store = .appStore
    message.productID = "monthly"
    message.environment = .production
    message.verifiedAtMs = 1_699_999_000_000
    let payload: [UInt8] = try message.serializedBytes()
    var buffer = ByteBuffer()
    buffer.writeResponseFrame(
      ResponseFrame(status: .success, methodIndex: 0, requestId: 42, payload: ByteBuffer(bytes: payload)))
    #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes("response-success-is-subscriber.hex")))
  }

  @Test("the fast path writes the golden IsSubscriber frame with an access level byte for byte")
  func accessLevelFrame() throws {
    var answer = IsSubscriberAnswer()
    answer.expiresAtMs = 1_700_000_000_000
    answer.state = .billingRetry
    answer.willRenew = true
    answer.store = .googlePlay
    answer.productId = "monthly"
    answer.environment = .production
    answer.verifiedAtMs = 1_699_999_000_000
    answer.evaluatedAtMs = 1_700_000_100_000
    answer.storeSubscriptionId = "token-1"
    answer.accessLevel = "read_only"
    let golden = try GoldenFrames.bytes("response-success-is-subscriber-access-level.hex")
    var buffer = ByteBuffer()
    buffer.writeIsSubscriberResponseFrame(methodIndex: 0, requestId: 43, answer: answer)
    #expect(Array(buffer.readableBytesView) == golden)
    let decoded = try Tollgate_V1_IsSubscriberResponse(serializedBytes: Array(golden[16...]))
    #expect(decoded == answer.message)
    #expect(decoded.accessLevel == "read_only")
    #expect(!decoded.active)
  }

  @Test("the client decoder reads golden responses, including an application error")
  func decodesGolden() throws {
    let decoder = ResponseFrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = ByteBuffer(bytes: try GoldenFrames.bytes("response-success-not-found.hex"))
    let frame = try #require(try decoder.decode(buffer: &buffer))
    #expect(frame.status == .success)
    #expect(frame.methodIndex == 1)
    #expect(frame.requestId == 7)
    let response = try Tollgate_V1_GetSubscriptionResponse(serializedBytes: Array(frame.payload.readableBytesView))
    #expect(response.error.code == .notFound)

    var pending = ByteBuffer(bytes: try GoldenFrames.bytes("response-too-many-pending.hex"))
    #expect(try decoder.decode(buffer: &pending)?.status == .tooManyPending)
  }

  @Test("the client decoder rejects an unknown status instead of guessing")
  func unknownStatus() {
    let decoder = ResponseFrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = ByteBuffer(bytes: RawWire.le(7) + RawWire.le(0) + RawWire.le(0) + RawWire.le(1))
    #expect(throws: FrameError.unknownStatus(7)) { try decoder.decode(buffer: &buffer) }
  }

  @Test("request frames encode as the golden bytes")
  func requestEncoding() throws {
    var message = Tollgate_V1_IsSubscriberRequest()
    message.userID = "user-42"
    message.entitlement = "premium"
    let payload: [UInt8] = try message.serializedBytes()
    var buffer = ByteBuffer()
    buffer.writeRequestFrame(methodIndex: 0, requestId: 42, payload: payload)
    #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes("request-is-subscriber.hex")))
  }

  @Test("Authenticate and GetSubmission requests encode as the golden bytes")
  func authenticateAndGetSubmissionRequests() throws {
    var authenticate = Tollgate_V1_AuthenticateRequest()
    authenticate.caller = "web"
    authenticate.key = "example-key-0001"
    var buffer = ByteBuffer()
    buffer.writeRequestFrame(methodIndex: 4, requestId: 1, payload: try authenticate.serializedBytes() as [UInt8])
    #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes("request-authenticate.hex")))

    var getSubmission = Tollgate_V1_GetSubmissionRequest()
    getSubmission.submissionID = "sub-0001"
    buffer.clear()
    buffer.writeRequestFrame(methodIndex: 5, requestId: 9, payload: try getSubmission.serializedBytes() as [UInt8])
    #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes("request-get-submission.hex")))
  }

  @Test("the golden Authenticate requests decode to the request messages")
  func authenticateRequestsDecode() throws {
    var decoder = RequestFrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = ByteBuffer(
      bytes: try GoldenFrames.bytes("request-authenticate.hex") + GoldenFrames.bytes("request-get-submission.hex"))
    guard case .request(let authenticate) = try decoder.decode(buffer: &buffer),
      case .request(let getSubmission) = try decoder.decode(buffer: &buffer)
    else {
      Issue.record("expected two requests")
      return
    }
    #expect(authenticate.methodIndex == 4)
    #expect(authenticate.requestId == 1)
    let credentials = try Tollgate_V1_AuthenticateRequest(
      serializedBytes: Array(authenticate.payload.readableBytesView))
    #expect(credentials.caller == "web")
    #expect(credentials.key == "example-key-0001")
    #expect(getSubmission.methodIndex == 5)
    #expect(getSubmission.requestId == 9)
    let request = try Tollgate_V1_GetSubmissionRequest(serializedBytes: Array(getSubmission.payload.readableBytesView))
    #expect(request.submissionID == "sub-0001")
    #expect(buffer.readableBytes == 0)
  }

  @Test("Authenticate and GetSubmission answers encode as the golden bytes")
  func authenticateAndGetSubmissionResponses() throws {
    var accepted = Tollgate_V1_AuthenticateResponse()
    accepted.caller = "web"
    accepted.scopes = ["read", "submit"]
    var refused = Tollgate_V1_AuthenticateResponse()
    refused.error.code = .unauthenticated
    refused.error.message = "unknown caller or wrong key"
    var submission = Tollgate_V1_GetSubmissionResponse()
    submission.submissionID = "sub-0001"
    submission.status = .rejected
    submission.rejectionReason = "sandbox receipt in production"
    submission.receivedAtMs = 1_700_000_000_000
    submission.userID = "user-42"
    let cases: [(String, UInt32, UInt32, [UInt8])] = [
      ("response-success-authenticate.hex", 4, 1, try accepted.serializedBytes()),
      ("response-unauthenticated.hex", 4, 1, try refused.serializedBytes()),
      ("response-success-get-submission.hex", 5, 9, try submission.serializedBytes()),
    ]
    for (file, methodIndex, requestId, payload) in cases {
      var buffer = ByteBuffer()
      let frame = ResponseFrame(
        status: .success, methodIndex: methodIndex, requestId: requestId, payload: ByteBuffer(bytes: payload))
      buffer.writeResponseFrame(frame)
      #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes(file)), "\(file)")
    }
  }

  @Test("the client decoder reads the golden Authenticate and GetSubmission answers")
  func decodesAuthenticateAndGetSubmission() throws {
    let decoder = ResponseFrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = ByteBuffer(bytes: try GoldenFrames.bytes("response-success-authenticate.hex"))
    let accepted = try #require(try decoder.decode(buffer: &buffer))
    #expect(accepted.status == .success)
    #expect(accepted.methodIndex == 4)
    let identity = try Tollgate_V1_AuthenticateResponse(serializedBytes: Array(accepted.payload.readableBytesView))
    #expect(!identity.hasError)
    #expect(identity.caller == "web")
    #expect(identity.scopes == ["read", "submit"])

    buffer = ByteBuffer(bytes: try GoldenFrames.bytes("response-unauthenticated.hex"))
    let refused = try #require(try decoder.decode(buffer: &buffer))
    #expect(refused.status == .success)
    let refusal = try Tollgate_V1_AuthenticateResponse(serializedBytes: Array(refused.payload.readableBytesView))
    #expect(refusal.error.code == .unauthenticated)
    #expect(refusal.error.message == "unknown caller or wrong key")

    buffer = ByteBuffer(bytes: try GoldenFrames.bytes("response-success-get-submission.hex"))
    let answered = try #require(try decoder.decode(buffer: &buffer))
    #expect(answered.methodIndex == 5)
    #expect(answered.requestId == 9)
    let submission = try Tollgate_V1_GetSubmissionResponse(serializedBytes: Array(answered.payload.readableBytesView))
    #expect(submission.submissionID == "sub-0001")
    #expect(submission.status == .rejected)
    #expect(submission.rejectionReason == "sandbox receipt in production")
    #expect(submission.receivedAtMs == 1_700_000_000_000)
    #expect(submission.userID == "user-42")
  }
}
