import NIOCore
import TollgateWire

/// Input: one byte choosing the payload limit, one choosing how the rest is cut into reads, then
/// the byte stream a client sends. The stream is decoded whole and read by read; both must yield
/// the same frames, consume the same bytes, and never read past what they were given.
enum FrameDecoderHarness {
  static func run(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let maximumPayloadLength = Int(bytes[0]) * 8
    let stride = Int(bytes[1]) % 32 + 1
    let stream = bytes[2...]

    var whole = ByteBuffer(bytes: stream)
    var wholeDecoder = RequestFrameDecoder(maximumPayloadLength: maximumPayloadLength)
    let wholeRequests = requests(from: &whole, decoder: &wholeDecoder)

    var pieces = ByteBuffer()
    var piecesDecoder = RequestFrameDecoder(maximumPayloadLength: maximumPayloadLength)
    var piecesRequests: [InboundRequest] = []
    var offset = stream.startIndex
    while offset < stream.endIndex {
      let end = min(offset + stride, stream.endIndex)
      pieces.writeBytes(stream[offset..<end])
      piecesRequests += requests(from: &pieces, decoder: &piecesDecoder)
      pieces.discardReadBytes()
      offset = end
    }
    precondition(wholeRequests == piecesRequests, "the frames depend on how the stream was read")
    precondition(whole.readableBytes == pieces.readableBytes, "the bytes left depend on how the stream was read")
    precondition(wholeDecoder.isDiscarding == piecesDecoder.isDiscarding)
    for request in wholeRequests {
      switch request {
      case .request(let frame): precondition(frame.payload.readableBytes <= maximumPayloadLength)
      case .oversized(_, _, let length): precondition(Int(length) > maximumPayloadLength)
      }
    }

    // The client's side of the same bytes, read as responses.
    var responses = ByteBuffer(bytes: stream)
    let responseDecoder = ResponseFrameDecoder(maximumPayloadLength: maximumPayloadLength)
    while responses.readableBytes > 0 {
      guard let frame = try? responseDecoder.decode(buffer: &responses) else { break }
      precondition(frame.payload.readableBytes <= maximumPayloadLength)
    }
    _ = try? responseDecoder.decodeLast(buffer: &responses, seenEOF: true)
  }

  /// Every request the decoder yields from what `buffer` holds now.
  private static func requests(from buffer: inout ByteBuffer, decoder: inout RequestFrameDecoder) -> [InboundRequest] {
    var requests: [InboundRequest] = []
    while let request = decoder.decodeFrame(buffer: &buffer) {
      requests.append(request)
    }
    return requests
  }
}
