import NIOCore
import TollgateContract

/// `IsSubscriberAnswer` with its strings as views of bytes someone else owns (the index's): the
/// form the hot path encodes, so an answer copies, builds and counts no `String`. Valid only
/// during the call that hands it out.
public struct IsSubscriberAnswerView {
  public var active = false
  public var expiresAtMs: Int64 = 0
  public var state = Tollgate_V1_SubscriptionState.unspecified
  public var willRenew = false
  public var store = Tollgate_V1_Store.unspecified
  public var productId = UnsafeRawBufferPointer(start: nil, count: 0)
  public var environment = Tollgate_V1_Environment.unspecified
  public var verifiedAtMs: Int64 = 0
  public var evaluatedAtMs: Int64 = 0
  /// Ignored when `numericStoreSubscriptionId` is set.
  public var storeSubscriptionId = UnsafeRawBufferPointer(start: nil, count: 0)
  /// When set, the store subscription id is this number in decimal.
  public var numericStoreSubscriptionId: UInt64?
  public var accessLevel = UnsafeRawBufferPointer(start: nil, count: 0)

  public init() {}

  /// An upper bound of the encoded size: every varint at its longest.
  var maximumEncodedLength: Int {
    // Tags are one byte; varints at most 10 bytes; string lengths at most 5.
    8 * (1 + 10) + (1 + 5 + productId.count) + (1 + 5 + max(storeSubscriptionId.count, 20))
      + (1 + 5 + accessLevel.count)
  }
}

extension IsSubscriberAnswer {
  /// Calls `body` with this answer as a view of its own strings (valid until `body` returns):
  /// one encoder, `ProtoWriter.write(_: IsSubscriberAnswerView)`, writes both forms.
  public func withView<R>(_ body: (IsSubscriberAnswerView) -> R) -> R {
    var productId = self.productId
    var storeSubscriptionId = self.storeSubscriptionId
    var accessLevel = self.accessLevel
    return productId.withUTF8 { productIdBytes in
      storeSubscriptionId.withUTF8 { storeSubscriptionIdBytes in
        accessLevel.withUTF8 { accessLevelBytes in
          var view = IsSubscriberAnswerView()
          view.active = active
          view.expiresAtMs = expiresAtMs
          view.state = state
          view.willRenew = willRenew
          view.store = store
          view.productId = UnsafeRawBufferPointer(productIdBytes)
          view.environment = environment
          view.verifiedAtMs = verifiedAtMs
          view.evaluatedAtMs = evaluatedAtMs
          view.storeSubscriptionId = UnsafeRawBufferPointer(storeSubscriptionIdBytes)
          view.numericStoreSubscriptionId = numericStoreSubscriptionId
          view.accessLevel = UnsafeRawBufferPointer(accessLevelBytes)
          return body(view)
        }
      }
    }
  }
}

extension ByteBuffer {
  /// Appends `answer` as a serialized `IsSubscriberResponse`; returns the number of bytes written.
  @discardableResult
  public mutating func writeIsSubscriberResponse(_ answer: IsSubscriberAnswerView) -> Int {
    writeWithUnsafeMutableBytes(minimumWritableBytes: answer.maximumEncodedLength) { buffer in
      var writer = ProtoWriter(base: buffer.baseAddress!)
      writer.write(answer)
      return writer.offset
    }
  }

  /// Appends a whole success frame (header and payload) for `answer`, in one write.
  public mutating func writeIsSubscriberResponseFrame(
    methodIndex: UInt32, requestId: UInt32, answer: IsSubscriberAnswerView
  ) {
    writeWithUnsafeMutableBytes(minimumWritableBytes: ResponseFrame.headerLength + answer.maximumEncodedLength) {
      buffer in
      let base = buffer.baseAddress!
      var writer = ProtoWriter(base: base + ResponseFrame.headerLength)
      writer.write(answer)
      ResponseFrame.Header(
        status: .success, methodIndex: methodIndex, messageLength: UInt32(writer.offset), requestId: requestId
      ).store(at: base)
      return ResponseFrame.headerLength + writer.offset
    }
  }
}

extension ProtoWriter {
  /// `answer` as a serialized `IsSubscriberResponse` (proto3: fields in number order, defaults
  /// omitted): exactly the bytes swift-protobuf writes for `IsSubscriberAnswer.message`.
  mutating func write(_ answer: IsSubscriberAnswerView) {
    if answer.active { varintField(1, 1) }
    if answer.expiresAtMs != 0 { varintField(2, UInt64(bitPattern: answer.expiresAtMs)) }
    if answer.state.rawValue != 0 { varintField(3, UInt64(bitPattern: Int64(answer.state.rawValue))) }
    if answer.willRenew { varintField(4, 1) }
    if answer.store.rawValue != 0 { varintField(5, UInt64(bitPattern: Int64(answer.store.rawValue))) }
    if !answer.productId.isEmpty { bytesField(6, answer.productId) }
    if answer.environment.rawValue != 0 { varintField(7, UInt64(bitPattern: Int64(answer.environment.rawValue))) }
    if answer.verifiedAtMs != 0 { varintField(8, UInt64(bitPattern: answer.verifiedAtMs)) }
    if answer.evaluatedAtMs != 0 { varintField(10, UInt64(bitPattern: answer.evaluatedAtMs)) }
    if let number = answer.numericStoreSubscriptionId {
      decimalField(11, number)
    } else if !answer.storeSubscriptionId.isEmpty {
      bytesField(11, answer.storeSubscriptionId)
    }
    if !answer.accessLevel.isEmpty { bytesField(12, answer.accessLevel) }
  }
}
