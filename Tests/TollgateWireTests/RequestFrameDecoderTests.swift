import NIOCore
import NIOTestUtils
import Testing
import TollgateContract
import TollgateTesting
import TollgateWire

@Suite("Request frame decoding")
struct RequestFrameDecoderTests {
  @Test("golden IsSubscriber request decodes to its header fields and payload")
  func goldenIsSubscriber() throws {
    var buffer = ByteBuffer(bytes: try GoldenFrames.bytes("request-is-subscriber.hex"))
    var decoder = RequestFrameDecoder(maximumPayloadLength: 1 << 20)
    let decoded = try decoder.decode(buffer: &buffer)
    guard case .request(let frame) = decoded else {
      Issue.record("expected a request, got \(String(describing: decoded))")
      return
    }
    #expect(frame.methodIndex == 0)
    #expect(frame.requestId == 42)
    // IsSubscriberRequest{user_id: "user-42", entitlement: "premium"} in protobuf wire format.
    #expect(
      Array(frame.payload.readableBytesView) == [0x0A, 0x07] + Array("user-42".utf8) + [0x12, 0x07]
        + Array("premium".utf8))
    #expect(buffer.readableBytes == 0)
    let request = try Tollgate_V1_IsSubscriberRequest(serializedBytes: Array(frame.payload.readableBytesView))
    #expect(request.userID == "user-42")
    #expect(request.entitlement == "premium")
  }

  @Test("request id bytes are kept verbatim, empty payloads decode")
  func requestIdVerbatim() throws {
    var buffer = ByteBuffer(bytes: try GoldenFrames.bytes("request-health.hex"))
    var decoder = RequestFrameDecoder(maximumPayloadLength: 1 << 20)
    guard case .request(let frame) = try decoder.decode(buffer: &buffer) else {
      Issue.record("expected a request")
      return
    }
    #expect(frame.methodIndex == 3)
    #expect(frame.requestId == 0xDEAD_BEEF)
    #expect(frame.payload.readableBytes == 0)
    var echoed = ByteBuffer()
    echoed.writeResponseHeader(status: .success, methodIndex: 3, requestId: frame.requestId, messageLength: 0)
    #expect(Array(echoed.readableBytesView)[12..<16] == [0xEF, 0xBE, 0xAD, 0xDE])
  }

  @Test("frames split at every byte and glued together decode the same")
  func splitAndGlued() throws {
    let one = try GoldenFrames.bytes("request-is-subscriber.hex")
    let two = try GoldenFrames.bytes("request-get-subscription.hex")
    var onePayload = ByteBuffer(bytes: one.dropFirst(12))
    var twoPayload = ByteBuffer(bytes: two.dropFirst(12))
    try ByteToMessageDecoderVerifier.verifyDecoder(
      inputOutputPairs: [
        (
          ByteBuffer(bytes: one),
          [
            .request(
              RequestFrame(methodIndex: 0, requestId: 42, payload: onePayload.readSlice(length: one.count - 12)!))
          ]
        ),
        (
          ByteBuffer(bytes: two),
          [.request(RequestFrame(methodIndex: 1, requestId: 7, payload: twoPayload.readSlice(length: two.count - 12)!))]
        ),
      ],
      decoderFactory: { RequestFrameDecoder(maximumPayloadLength: 1 << 20) }
    )
  }

  @Test("an oversized payload is reported at its header and skipped, and the next frame still decodes")
  func oversizedIsSkipped() throws {
    var decoder = RequestFrameDecoder(maximumPayloadLength: 8)
    var buffer = ByteBuffer(
      bytes: RawWire.request(methodIndex: 0, requestId: 1, payload: Array(repeating: 0x41, count: 20)))
    // Only part of the oversized body has arrived: the decoder answers at once.
    buffer.moveWriterIndex(to: 12 + 5)
    #expect(try decoder.decode(buffer: &buffer) == .oversized(methodIndex: 0, requestId: 1, messageLength: 20))
    #expect(try decoder.decode(buffer: &buffer) == nil)
    // The rest of the body, then a good frame.
    var rest = ByteBuffer(
      bytes: Array(repeating: 0x41, count: 15) + RawWire.request(methodIndex: 3, requestId: 2, payload: []))
    let next = try decoder.decode(buffer: &rest)
    #expect(next == .request(RequestFrame(methodIndex: 3, requestId: 2, payload: ByteBuffer())))
    #expect(rest.readableBytes == 0)
  }

  @Test("a partial header waits for more bytes")
  func partialHeader() throws {
    var decoder = RequestFrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = ByteBuffer(bytes: [0x00, 0x00, 0x00, 0x00, 0x02])
    #expect(try decoder.decode(buffer: &buffer) == nil)
    #expect(buffer.readableBytes == 5)
  }
}
