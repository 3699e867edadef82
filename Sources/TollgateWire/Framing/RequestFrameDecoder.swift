import NIOCore

/// What the server's decoder yields: a whole request, or the header of one whose payload exceeds the
/// limit (its bytes are discarded as they arrive, so the connection stays usable).
public enum InboundRequest: Sendable, Hashable {
  case request(RequestFrame)
  case oversized(methodIndex: UInt32, requestId: UInt32, messageLength: UInt32)
}

/// Splits a byte stream into protobuf-c-rpc request frames. Checks the length against the limit
/// before waiting for the body.
/// The server's loops call `decodeFrame` directly; the NIO decoder conformance lets the decoder
/// be checked with NIO's `ByteToMessageDecoderVerifier` (every split of the input).
public struct RequestFrameDecoder: NIOSingleStepByteToMessageDecoder {
  public typealias InboundOut = InboundRequest

  public let maximumPayloadLength: Int
  private var bytesToDiscard = 0

  /// True while the rest of an oversized payload is being skipped.
  public var isDiscarding: Bool { bytesToDiscard > 0 }

  public init(maximumPayloadLength: Int) {
    self.maximumPayloadLength = maximumPayloadLength
  }

  public mutating func decode(buffer: inout ByteBuffer) throws -> InboundRequest? {
    decodeFrame(buffer: &buffer)
  }

  public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> InboundRequest? {
    // A partial frame at EOF is dropped: its sender is gone and cannot read an answer.
    decodeFrame(buffer: &buffer)
  }

  /// The next request (or oversized header) in `buffer`; nil until one is complete.
  public mutating func decodeFrame(buffer: inout ByteBuffer) -> InboundRequest? {
    discardSkippedBytes(from: &buffer)
    if bytesToDiscard > 0 { return nil }
    guard let header = buffer.withUnsafeReadableBytes({ RequestFrame.Header(in: $0) }) else { return nil }
    let (methodIndex, length, requestId) = (header.methodIndex, header.messageLength, header.requestId)

    if Int(length) > maximumPayloadLength {
      buffer.moveReaderIndex(forwardBy: RequestFrame.headerLength)
      bytesToDiscard = Int(length)
      discardSkippedBytes(from: &buffer)
      return .oversized(methodIndex: methodIndex, requestId: requestId, messageLength: length)
    }
    guard buffer.readableBytes >= RequestFrame.headerLength + Int(length) else { return nil }
    buffer.moveReaderIndex(forwardBy: RequestFrame.headerLength)
    let payload = buffer.readSlice(length: Int(length))!
    return .request(RequestFrame(methodIndex: methodIndex, requestId: requestId, payload: payload))
  }

  /// Skips what `buffer` holds of an oversized payload.
  private mutating func discardSkippedBytes(from buffer: inout ByteBuffer) {
    let discarded = min(bytesToDiscard, buffer.readableBytes)
    buffer.moveReaderIndex(forwardBy: discarded)
    bytesToDiscard -= discarded
  }
}
