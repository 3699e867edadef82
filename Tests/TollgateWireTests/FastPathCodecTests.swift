import NIOCore
import PropertyBased
import Testing
import TollgateContract
import TollgateWire

@Suite("The IsSubscriber fast path writes and reads what swift-protobuf does")
struct FastPathCodecTests {
  static func written(_ answer: IsSubscriberAnswer) -> [UInt8] {
    var buffer = ByteBuffer()
    let count = buffer.writeIsSubscriberResponse(answer)
    #expect(count == buffer.readableBytes)
    return Array(buffer.readableBytesView)
  }

  @Test("an empty answer, a typical one, and extremes")
  func examples() throws {
    var typical = IsSubscriberAnswer()
    typical.active = true
    typical.expiresAtMs = 1_800_000_000_000
    typical.state = .gracePeriod
    typical.willRenew = true
    typical.store = .appStore
    typical.productId = "com.example.premium.monthly"
    typical.environment = .sandbox
    typical.verifiedAtMs = 1_799_999_000_000
    typical.evaluatedAtMs = 1_799_999_500_000
    typical.storeSubscriptionId = "2000000100000001"
    typical.accessLevel = "full"
    var extreme = typical
    extreme.expiresAtMs = -1
    extreme.verifiedAtMs = Int64.max
    extreme.evaluatedAtMs = Int64.min
    extreme.productId = String(repeating: "é", count: 200)
    extreme.state = .revoked
    extreme.accessLevel = String(repeating: "níveau-lecture ", count: 20)
    var readOnly = IsSubscriberAnswer()
    readOnly.state = .billingRetry
    readOnly.accessLevel = "read_only"
    for answer in [IsSubscriberAnswer(), typical, extreme, readOnly] {
      #expect(Self.written(answer) == (try answer.message.serializedBytes() as [UInt8]))
    }
  }

  @Test("a numeric store subscription id is written as its decimal digits, at every digit count")
  func decimalIds() throws {
    var numbers: [UInt64] = [0, 1, 7, UInt64.max, UInt64.max - 1, 2_000_000_100_000_001]
    var power: UInt64 = 1
    for _ in 1...19 {
      power *= 10
      numbers += [power - 1, power, power + 1, power / 2 + 3]
    }
    for number in numbers {
      var answer = IsSubscriberAnswer()
      answer.numericStoreSubscriptionId = number
      let written = Self.written(answer)
      #expect(written == (try answer.message.serializedBytes() as [UInt8]), "\(number)")
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: written).storeSubscriptionID == String(number))
    }
  }

  @Test("any combination of fields", .timeLimit(.minutes(1)))
  func anyAnswer() async {
    let states = Tollgate_V1_SubscriptionState.allCases
    await propertyCheck(
      input: Gen.bool, Gen.int64(in: Int64.min...Int64.max), Gen.int(in: 0...(states.count - 1)),
      Gen.int64(in: -1...Int64.max), Gen.letterOrNumber.string(of: 0...40)
    ) { active, time, stateIndex, other, text in
      var answer = IsSubscriberAnswer()
      answer.active = active
      answer.expiresAtMs = time
      answer.state = states[stateIndex]
      answer.willRenew = !active
      answer.store = .googlePlay
      answer.productId = text
      answer.environment = active ? .production : .unspecified
      answer.verifiedAtMs = other
      answer.evaluatedAtMs = time &+ 1
      answer.storeSubscriptionId = String(text.reversed())
      if active { answer.numericStoreSubscriptionId = UInt64(bitPattern: other) }
      // Every kind of level: none (no record), the defaults, an operator's, and any text.
      answer.accessLevel = ["", "full", "none", "read_only", text][stateIndex % 5]
      let expected: [UInt8]? = try? answer.message.serializedBytes()
      #expect(Self.written(answer) == expected)
    }
  }

  @Test("requests: what swift-protobuf writes, with unknown fields, decodes; broken bytes do not")
  func queries() throws {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = "user-42"
    request.entitlement = "premium"
    let plain: [UInt8] = try request.serializedBytes()
    #expect(
      IsSubscriberQuery(decoding: ByteBuffer(bytes: plain))
        == IsSubscriberQuery(userId: "user-42", entitlement: "premium"))
    #expect(IsSubscriberQuery(decoding: ByteBuffer()) == IsSubscriberQuery())

    // Unknown fields of every wire type are skipped; a repeated field's last value wins.
    let unknown: [UInt8] =
      [0x18, 0x96, 0x01, 0x21] + [UInt8](repeating: 7, count: 8) + [0x2A, 0x02, 0x41, 0x42, 0x35, 1, 2, 3, 4]
    let again: [UInt8] = [0x12, 0x03] + Array("pro".utf8)
    let query = IsSubscriberQuery(decoding: ByteBuffer(bytes: unknown + plain + again))
    #expect(query == IsSubscriberQuery(userId: "user-42", entitlement: "pro"))
    #expect(try Tollgate_V1_IsSubscriberRequest(serializedBytes: unknown + plain + again).entitlement == "pro")

    let broken: [[UInt8]] = [
      [0x0A, 0x05, 0x61],  // length past the end
      [0x0A, 0x02, 0xC3, 0x28],  // invalid UTF-8
      [0x0A],  // no length
      [0x00, 0x01],  // field number 0
      [0x1B],  // a group
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // an 11-byte varint
      // Tags swift-protobuf refuses (found by scripts/fuzz): past 32 bits, or longer than five bytes.
      [0x80, 0x80, 0x80, 0x80, 0x10, 0x00],
      [0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01],
    ]
    // user_id with the wrong wire type is an unknown field to swift-protobuf, and to us.
    #expect(
      IsSubscriberQuery(decoding: ByteBuffer(bytes: [0x08, 0x01] + plain))
        == IsSubscriberQuery(userId: "user-42", entitlement: "premium"))
    #expect(try Tollgate_V1_IsSubscriberRequest(serializedBytes: [0x08, 0x01] + plain).userID == "user-42")
    for bytes in broken {
      #expect(IsSubscriberQuery(decoding: ByteBuffer(bytes: bytes)) == nil, "\(bytes)")
      #expect(throws: (any Error).self) { try Tollgate_V1_IsSubscriberRequest(serializedBytes: bytes) }
    }
  }
}
