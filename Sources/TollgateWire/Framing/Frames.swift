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

  /// A request frame's header: what the server's decoder, its hot path's scan, the client and
  /// the load generator all read and write, here only.
  public struct Header: Sendable, Hashable {
    public var methodIndex: UInt32
    public var messageLength: UInt32
    public var requestId: UInt32

    public init(methodIndex: UInt32, messageLength: UInt32, requestId: UInt32) {
      self.methodIndex = methodIndex
      self.messageLength = messageLength
      self.requestId = requestId
    }

    /// The header at `offset` in `bytes`; nil when fewer than `headerLength` bytes remain.
    public init?(in bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
      guard bytes.count - offset >= RequestFrame.headerLength else { return nil }
      methodIndex = bytes.word(at: offset)
      messageLength = bytes.word(at: offset + 4)
      requestId = bytes.word(at: offset + 8)
    }

    /// Stores the header's `headerLength` bytes at `base`.
    public func store(at base: UnsafeMutableRawPointer) {
      base.storeWord(methodIndex, at: 0)
      base.storeWord(messageLength, at: 4)
      base.storeWord(requestId, at: 8)
    }

    /// Appends the header to `bytes`.
    public func append(to bytes: inout [UInt8]) {
      let start = bytes.count
      bytes.append(contentsOf: repeatElement(0, count: RequestFrame.headerLength))
      bytes.withUnsafeMutableBytes { store(at: $0.baseAddress! + start) }
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

  /// A response frame's header, with the status as it came (it may be one `RPCStatus` lacks).
  public struct Header: Sendable, Hashable {
    public var rawStatus: UInt32
    public var methodIndex: UInt32
    public var messageLength: UInt32
    public var requestId: UInt32

    public init(status: RPCStatus, methodIndex: UInt32, messageLength: UInt32, requestId: UInt32) {
      self.rawStatus = status.rawValue
      self.methodIndex = methodIndex
      self.messageLength = messageLength
      self.requestId = requestId
    }

    /// The header at `offset` in `bytes`; nil when fewer than `headerLength` bytes remain.
    public init?(in bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
      guard bytes.count - offset >= ResponseFrame.headerLength else { return nil }
      rawStatus = bytes.word(at: offset)
      methodIndex = bytes.word(at: offset + 4)
      messageLength = bytes.word(at: offset + 8)
      requestId = bytes.word(at: offset + 12)
    }

    public var status: RPCStatus? { RPCStatus(rawValue: rawStatus) }

    /// Stores the header's `headerLength` bytes at `base`.
    public func store(at base: UnsafeMutableRawPointer) {
      base.storeWord(rawStatus, at: 0)
      base.storeWord(methodIndex, at: 4)
      base.storeWord(messageLength, at: 8)
      base.storeWord(requestId, at: 12)
    }
  }
}

extension ByteBuffer {
  /// Appends a request frame.
  public mutating func writeRequestFrame(_ frame: RequestFrame) {
    writeRequestFrame(
      methodIndex: frame.methodIndex, requestId: frame.requestId, payload: frame.payload.readableBytesView)
  }

  public mutating func writeRequestFrame<Payload: Collection<UInt8>>(
    methodIndex: UInt32, requestId: UInt32, payload: Payload
  ) {
    let header = RequestFrame.Header(
      methodIndex: methodIndex, messageLength: UInt32(payload.count), requestId: requestId)
    writeWithUnsafeMutableBytes(minimumWritableBytes: RequestFrame.headerLength) { buffer in
      header.store(at: buffer.baseAddress!)
      return RequestFrame.headerLength
    }
    writeBytes(payload)
  }

  /// Appends a response frame.
  public mutating func writeResponseFrame(_ frame: ResponseFrame) {
    writeResponseHeader(
      status: frame.status, methodIndex: frame.methodIndex, requestId: frame.requestId,
      messageLength: UInt32(frame.payload.readableBytes))
    writeImmutableBuffer(frame.payload)
  }

  public mutating func writeResponseHeader(
    status: RPCStatus, methodIndex: UInt32, requestId: UInt32, messageLength: UInt32
  ) {
    let header = ResponseFrame.Header(
      status: status, methodIndex: methodIndex, messageLength: messageLength, requestId: requestId)
    writeWithUnsafeMutableBytes(minimumWritableBytes: ResponseFrame.headerLength) { buffer in
      header.store(at: buffer.baseAddress!)
      return ResponseFrame.headerLength
    }
  }
}

/// Headers are little-endian `u32` words.
extension UnsafeRawBufferPointer {
  fileprivate func word(at offset: Int) -> UInt32 {
    UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }
}

extension UnsafeMutableRawPointer {
  fileprivate func storeWord(_ value: UInt32, at offset: Int) {
    (self + offset).storeBytes(of: value.littleEndian, as: UInt32.self)
  }
}
