import NIOCore

/// protobuf-c-rpc's response status (`ProtobufC_RPC_Status_Code`).
public enum RPCStatus: UInt32, Sendable, Hashable {
  /// The payload is the method's response message.
  case success = 0
  /// The call failed before the method could answer: unknown method, undecodable or oversized
  /// payload, internal failure. The payload is empty.
  case serviceFailed = 1
  /// The connection has more requests in flight than the server allows. The payload is empty.
  case tooManyPending = 2
}

/// A request as protobuf-c-rpc's default protocol frames it:
/// `method_index u32 LE | message_length u32 LE | request_id (4 bytes) | payload`.
public struct RequestFrame: Sendable, Hashable {
  public static let headerLength = 12

  public var methodIndex: UInt32
  /// Opaque to the server: echoed back verbatim (read and written little-endian).
  public var requestId: UInt32
  public var payload: ByteBuffer

  public init(methodIndex: UInt32, requestId: UInt32, payload: ByteBuffer) {
    self.methodIndex = methodIndex
    self.requestId = requestId
    self.payload = payload
  }
}

extension RequestFrame {
  /// A request frame's header as it lies in memory: what the server's decoder and its hot
  /// path's scan both read.
  struct Header {
    var methodIndex: UInt32
    var messageLength: UInt32
    var requestId: UInt32

    /// The header at `offset` in `bytes`; nil when fewer than `headerLength` bytes remain.
    init?(in bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
      guard bytes.count - offset >= RequestFrame.headerLength else { return nil }
      methodIndex = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      messageLength = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
      requestId = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self))
    }
  }
}

/// A response: `status_code u32 LE | method_index u32 LE | message_length u32 LE | request_id | payload`.
public struct ResponseFrame: Sendable, Hashable {
  public static let headerLength = 16

  public var status: RPCStatus
  public var methodIndex: UInt32
  public var requestId: UInt32
  public var payload: ByteBuffer

  public init(status: RPCStatus, methodIndex: UInt32, requestId: UInt32, payload: ByteBuffer) {
    self.status = status
    self.methodIndex = methodIndex
    self.requestId = requestId
    self.payload = payload
  }
}

extension ByteBuffer {
  /// Appends a request frame.
  public mutating func writeRequestFrame(_ frame: RequestFrame) {
    writeRequestFrame(methodIndex: frame.methodIndex, requestId: frame.requestId, payload: frame.payload.readableBytesView)
  }

  public mutating func writeRequestFrame<Payload: Collection<UInt8>>(
    methodIndex: UInt32, requestId: UInt32, payload: Payload
  ) {
    writeInteger(methodIndex, endianness: .little)
    writeInteger(UInt32(payload.count), endianness: .little)
    writeInteger(requestId, endianness: .little)
    writeBytes(payload)
  }

  /// Appends a response frame.
  public mutating func writeResponseFrame(_ frame: ResponseFrame) {
    writeResponseHeader(
      status: frame.status, methodIndex: frame.methodIndex, requestId: frame.requestId,
      messageLength: UInt32(frame.payload.readableBytes))
    writeImmutableBuffer(frame.payload)
  }

  public mutating func writeResponseHeader(status: RPCStatus, methodIndex: UInt32, requestId: UInt32, messageLength: UInt32) {
    writeInteger(status.rawValue, endianness: .little)
    writeInteger(methodIndex, endianness: .little)
    writeInteger(messageLength, endianness: .little)
    writeInteger(requestId, endianness: .little)
  }
}
