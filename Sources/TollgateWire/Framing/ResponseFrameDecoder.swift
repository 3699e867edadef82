import NIOCore

/// Splits a byte stream into protobuf-c-rpc response frames (the client side).
public struct ResponseFrameDecoder: NIOSingleStepByteToMessageDecoder {
  public typealias InboundOut = ResponseFrame

  public let maximumPayloadLength: Int

  public init(maximumPayloadLength: Int) {
    self.maximumPayloadLength = maximumPayloadLength
  }

  public func decode(buffer: inout ByteBuffer) throws -> ResponseFrame? {
    guard let header = buffer.withUnsafeReadableBytes({ ResponseFrame.Header(in: $0) }) else { return nil }
    guard let status = header.status else {
      throw FrameError.unknownStatus(header.rawStatus)
    }
    let (methodIndex, length, requestId) = (header.methodIndex, header.messageLength, header.requestId)
    guard Int(length) <= maximumPayloadLength else {
      throw FrameError.payloadTooLarge(length: Int(length), maximum: maximumPayloadLength)
    }
    guard buffer.readableBytes >= ResponseFrame.headerLength + Int(length) else { return nil }
    buffer.moveReaderIndex(forwardBy: ResponseFrame.headerLength)
    let payload = buffer.readSlice(length: Int(length))!
    return ResponseFrame(status: status, methodIndex: methodIndex, requestId: requestId, payload: payload)
  }

  public func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ResponseFrame? {
    try decode(buffer: &buffer)
  }
}

/// A response stream that cannot be trusted any further; the client closes the connection.
public enum FrameError: Error, Sendable, Hashable {
  case unknownStatus(UInt32)
  case payloadTooLarge(length: Int, maximum: Int)
}
