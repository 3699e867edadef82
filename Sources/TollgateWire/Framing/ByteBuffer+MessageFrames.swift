import NIOCore
import SwiftProtobuf

extension ByteBuffer {
  /// Appends a response frame whose payload `writePayload` appends; the length is filled in after.
  /// If `writePayload` throws, nothing is appended.
  public mutating func writeResponseFrame(
    status: RPCStatus, methodIndex: UInt32, requestId: UInt32, _ writePayload: (inout ByteBuffer) throws -> Void
  ) rethrows {
    let headerAt = writerIndex
    writeResponseHeader(status: status, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
    do {
      try writePayload(&self)
    } catch {
      moveWriterIndex(to: headerAt)
      throw error
    }
    let length = writerIndex - headerAt - ResponseFrame.headerLength
    setInteger(UInt32(length), at: headerAt + 8, endianness: .little)
  }

  /// Appends a successful response frame carrying `message`.
  public mutating func writeResponseFrame(methodIndex: UInt32, requestId: UInt32, message: some SwiftProtobuf.Message)
    throws
  {
    let bytes: [UInt8] = try message.serializedBytes()
    writeResponseFrame(status: .success, methodIndex: methodIndex, requestId: requestId) { $0.writeBytes(bytes) }
  }
}

extension SwiftProtobuf.Message {
  /// The serialized message in a buffer of its own.
  public func encoded() throws -> ByteBuffer {
    let bytes: [UInt8] = try serializedBytes()
    return ByteBuffer(bytes: bytes)
  }
}
