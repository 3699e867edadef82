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
}
