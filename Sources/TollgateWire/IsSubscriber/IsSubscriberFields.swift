import NIOCore

/// An `IsSubscriberRequest`'s two strings as UTF-8 bytes inside the request frame: what the hot
/// path looks up, without building a `String`. Valid only during the call it is passed to.
public struct IsSubscriberFields {
  public var userId: UnsafeRawBufferPointer
  public var entitlement: UnsafeRawBufferPointer

  public init(userId: UnsafeRawBufferPointer, entitlement: UnsafeRawBufferPointer) {
    self.userId = userId
    self.entitlement = entitlement
  }

  /// Reads the fields of `payload` (an `IsSubscriberRequest`) and calls `body` with them; nil when
  /// the payload does not decode. Unknown fields (and, as swift-protobuf does, known ones with
  /// another wire type) are skipped; anything that is not valid protobuf, or a string that is not
  /// valid UTF-8, is refused, as swift-protobuf refuses it.
  public static func withFields<Result>(of payload: ByteBuffer, _ body: (IsSubscriberFields) -> Result) -> Result? {
    payload.withUnsafeReadableBytes { bytes in
      guard let fields = IsSubscriberFields(parsing: bytes) else { return nil }
      return body(fields)
    }
  }

  /// The fields of `bytes` (an `IsSubscriberRequest`); nil when they do not decode.
  public init?(parsing bytes: UnsafeRawBufferPointer) {
    var userId = UnsafeRawBufferPointer(start: nil, count: 0)
    var entitlement = userId
    let read = ProtoReader.readStringFields(in: bytes, upTo: 2) { field, text in
      if field == 1 { userId = text } else { entitlement = text }
    }
    guard read else { return nil }
    self.userId = userId
    self.entitlement = entitlement
  }
}

/// An `IsSubscriberRequest` read straight from the frame's bytes: the two strings, nothing else.
public struct IsSubscriberQuery: Sendable, Hashable {
  public var userId = ""
  public var entitlement = ""

  public init(userId: String = "", entitlement: String = "") {
    self.userId = userId
    self.entitlement = entitlement
  }

  /// Nil when `payload` does not decode (as `IsSubscriberFields` reads it).
  public init?(decoding payload: ByteBuffer) {
    guard
      let query = IsSubscriberFields.withFields(
        of: payload,
        {
          IsSubscriberQuery(
            userId: String(decoding: $0.userId, as: UTF8.self),
            entitlement: String(decoding: $0.entitlement, as: UTF8.self))
        })
    else { return nil }
    self = query
  }
}
