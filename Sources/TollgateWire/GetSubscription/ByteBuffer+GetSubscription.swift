import NIOCore
import TollgateContract

extension ByteBuffer {
  /// Appends `answer` as a serialized `GetSubscriptionResponse` (proto3: fields in number order,
  /// defaults omitted, every element of a repeated field, nested messages behind their lengths);
  /// returns the number of bytes written.
  @discardableResult
  public mutating func writeGetSubscriptionResponse(_ answer: GetSubscriptionAnswer) -> Int {
    Self.withNestedSizes(of: answer) { sizes, length in
      writeWithUnsafeMutableBytes(minimumWritableBytes: length) { buffer in
        var writer = ProtoWriter(base: buffer.baseAddress!)
        writer.write(answer, nestedSizes: sizes)
        precondition(writer.offset == length, "a GetSubscriptionResponse is as long as its size said")
        return length
      }
    }
  }

  /// Appends a whole success frame (header and payload) for `answer`, in one write: the nested
  /// messages' sizes first, then the header with the payload's length, then the payload.
  public mutating func writeGetSubscriptionResponseFrame(
    methodIndex: UInt32, requestId: UInt32, answer: GetSubscriptionAnswer
  ) {
    _ = Self.withNestedSizes(of: answer) { sizes, length in
      writeWithUnsafeMutableBytes(minimumWritableBytes: ResponseFrame.headerLength + length) { buffer in
        let base = buffer.baseAddress!
        var writer = ProtoWriter(base: base + ResponseFrame.headerLength)
        writer.write(answer, nestedSizes: sizes)
        precondition(writer.offset == length, "a GetSubscriptionResponse is as long as its size said")
        ResponseFrame.Header(
          status: .success, methodIndex: methodIndex, messageLength: UInt32(length), requestId: requestId
        ).store(at: base)
        return ResponseFrame.headerLength + length
      }
    }
  }

  /// Calls `body` with the encoded size of each subscription, then of each entitlement status,
  /// and the whole message's.
  private static func withNestedSizes<Result>(
    of answer: GetSubscriptionAnswer, _ body: (UnsafeBufferPointer<Int>, Int) -> Result
  ) -> Result {
    let count = answer.subscriptions.count + answer.entitlements.count
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { sizes in
      var length = answer.userId.isEmpty ? 0 : ProtoSize.lengthDelimited(answer.userId.count)
      for (position, subscription) in answer.subscriptions.enumerated() {
        let size = subscription.encodedSize(names: answer.entitlementNames)
        sizes.initializeElement(at: position, to: size)
        length += ProtoSize.lengthDelimited(size)
      }
      for (position, status) in answer.entitlements.enumerated() {
        let size = status.encodedSize
        sizes.initializeElement(at: answer.subscriptions.count + position, to: size)
        length += ProtoSize.lengthDelimited(size)
      }
      if answer.evaluatedAtMs != 0 { length += ProtoSize.varintField(UInt64(bitPattern: answer.evaluatedAtMs)) }
      return body(UnsafeBufferPointer(sizes), length)
    }
  }
}

/// Encoded sizes of protobuf fields whose tag is one byte (field numbers up to 15).
enum ProtoSize {
  static func varint(_ value: UInt64) -> Int { (64 - (value | 1).leadingZeroBitCount + 6) / 7 }

  static func varintField(_ value: UInt64) -> Int { 1 + varint(value) }

  static func lengthDelimited(_ length: Int) -> Int { 1 + varint(UInt64(length)) + length }

  static func string(_ value: String) -> Int { lengthDelimited(value.utf8.count) }

  static func enumValue(_ rawValue: Int) -> Int { varintField(UInt64(bitPattern: Int64(rawValue))) }
}

extension SubscriptionFields {
  /// The size of this `Subscription` encoded (without its own tag and length).
  func encodedSize(names: UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int {
    var size = 0
    if store.rawValue != 0 { size += ProtoSize.enumValue(store.rawValue) }
    if let number = numericStoreSubscriptionId {
      size += 2 + ProtoWriter.decimalDigitCount(number)
    } else if !storeSubscriptionId.isEmpty {
      size += ProtoSize.lengthDelimited(storeSubscriptionId.count)
    }
    if !productId.isEmpty { size += ProtoSize.lengthDelimited(productId.count) }
    if state.rawValue != 0 { size += ProtoSize.enumValue(state.rawValue) }
    if active { size += 2 }
    if expiresAtMs != 0 { size += ProtoSize.varintField(UInt64(bitPattern: expiresAtMs)) }
    if willRenew { size += 2 }
    if environment.rawValue != 0 { size += ProtoSize.enumValue(environment.rawValue) }
    if verifiedAtMs != 0 { size += ProtoSize.varintField(UInt64(bitPattern: verifiedAtMs)) }
    for position in entitlements { size += ProtoSize.lengthDelimited(names[position].count) }
    if !reason.isEmpty { size += ProtoSize.string(reason) }
    for replaced in replaces { size += ProtoSize.string(replaced) }
    return size
  }
}

extension EntitlementStatusFields {
  /// The size of this `EntitlementStatus` encoded (without its own tag and length).
  var encodedSize: Int {
    var size = entitlement.isEmpty ? 0 : ProtoSize.lengthDelimited(entitlement.count)
    if answer.active { size += 2 }
    if answer.expiresAtMs != 0 { size += ProtoSize.varintField(UInt64(bitPattern: answer.expiresAtMs)) }
    if answer.state.rawValue != 0 { size += ProtoSize.enumValue(answer.state.rawValue) }
    if answer.willRenew { size += 2 }
    if answer.store.rawValue != 0 { size += ProtoSize.enumValue(answer.store.rawValue) }
    if !answer.productId.isEmpty { size += ProtoSize.lengthDelimited(answer.productId.count) }
    if answer.environment.rawValue != 0 { size += ProtoSize.enumValue(answer.environment.rawValue) }
    if answer.verifiedAtMs != 0 { size += ProtoSize.varintField(UInt64(bitPattern: answer.verifiedAtMs)) }
    if let number = answer.numericStoreSubscriptionId {
      size += 2 + ProtoWriter.decimalDigitCount(number)
    } else if !answer.storeSubscriptionId.isEmpty {
      size += ProtoSize.lengthDelimited(answer.storeSubscriptionId.count)
    }
    if !answer.accessLevel.isEmpty { size += ProtoSize.lengthDelimited(answer.accessLevel.count) }
    return size
  }
}

extension ProtoWriter {
  /// Writes `answer` as a `GetSubscriptionResponse`; `nestedSizes` are the subscriptions' and then
  /// the entitlement statuses' encoded sizes.
  mutating func write(_ answer: GetSubscriptionAnswer, nestedSizes: UnsafeBufferPointer<Int>) {
    if !answer.userId.isEmpty { bytesField(1, answer.userId) }
    for (position, subscription) in answer.subscriptions.enumerated() {
      byte(2 << 3 | 2)
      varint(UInt64(nestedSizes[position]))
      write(subscription, names: answer.entitlementNames)
    }
    for (position, status) in answer.entitlements.enumerated() {
      byte(3 << 3 | 2)
      varint(UInt64(nestedSizes[answer.subscriptions.count + position]))
      write(status)
    }
    if answer.evaluatedAtMs != 0 { varintField(5, UInt64(bitPattern: answer.evaluatedAtMs)) }
  }

  mutating func write(_ subscription: SubscriptionFields, names: UnsafeBufferPointer<UnsafeRawBufferPointer>) {
    let s = subscription
    if s.store.rawValue != 0 { varintField(1, UInt64(bitPattern: Int64(s.store.rawValue))) }
    if let number = s.numericStoreSubscriptionId {
      decimalField(2, number)
    } else if !s.storeSubscriptionId.isEmpty {
      bytesField(2, s.storeSubscriptionId)
    }
    if !s.productId.isEmpty { bytesField(3, s.productId) }
    if s.state.rawValue != 0 { varintField(4, UInt64(bitPattern: Int64(s.state.rawValue))) }
    if s.active { varintField(5, 1) }
    if s.expiresAtMs != 0 { varintField(6, UInt64(bitPattern: s.expiresAtMs)) }
    if s.willRenew { varintField(7, 1) }
    if s.environment.rawValue != 0 { varintField(8, UInt64(bitPattern: Int64(s.environment.rawValue))) }
    if s.verifiedAtMs != 0 { varintField(9, UInt64(bitPattern: s.verifiedAtMs)) }
    // Repeated strings: every element, an empty one too.
    for position in s.entitlements { bytesField(10, names[position]) }
    if !s.reason.isEmpty { stringField(11, s.reason) }
    for replaced in s.replaces { stringField(12, replaced) }
  }

  mutating func write(_ status: EntitlementStatusFields) {
    let a = status.answer
    if !status.entitlement.isEmpty { bytesField(1, status.entitlement) }
    if a.active { varintField(2, 1) }
    if a.expiresAtMs != 0 { varintField(3, UInt64(bitPattern: a.expiresAtMs)) }
    if a.state.rawValue != 0 { varintField(4, UInt64(bitPattern: Int64(a.state.rawValue))) }
    if a.willRenew { varintField(5, 1) }
    if a.store.rawValue != 0 { varintField(6, UInt64(bitPattern: Int64(a.store.rawValue))) }
    if !a.productId.isEmpty { bytesField(7, a.productId) }
    if a.environment.rawValue != 0 { varintField(8, UInt64(bitPattern: Int64(a.environment.rawValue))) }
    if a.verifiedAtMs != 0 { varintField(9, UInt64(bitPattern: a.verifiedAtMs)) }
    if let number = a.numericStoreSubscriptionId {
      decimalField(10, number)
    } else if !a.storeSubscriptionId.isEmpty {
      bytesField(10, a.storeSubscriptionId)
    }
    if !a.accessLevel.isEmpty { bytesField(11, a.accessLevel) }
  }
}
