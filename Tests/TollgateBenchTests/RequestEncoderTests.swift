import Testing
import TollgateContract

@testable import TollgateBench

@Suite("Request frames written by hand are what swift-protobuf writes")
struct RequestEncoderTests {
  static func frame(method: UInt32, id: UInt32, payload: [UInt8]) -> [UInt8] {
    // Written out here, independently of the Wire module's header writer.
    func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    return littleEndian(method) + littleEndian(UInt32(payload.count)) + littleEndian(id) + payload
  }

  @Test("IsSubscriber", arguments: [0, 7, 9, 10, 99, 100, 123_456_789, Int(Int32.max)])
  func isSubscriber(number: Int) throws {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = "user-\(number)"
    request.entitlement = "premium"
    var written: [UInt8] = []
    RequestEncoder.appendIsSubscriber(
      to: &written, requestId: 0xA1B2_C3D4, userPrefix: Array("user-".utf8), userNumber: number,
      entitlement: Array("premium".utf8))
    #expect(written == Self.frame(method: 0, id: 0xA1B2_C3D4, payload: try request.serializedBytes()))
  }

  @Test("a long prefix needs a two-byte length")
  func longPrefix() throws {
    let prefix = String(repeating: "x", count: 200)
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = prefix + "42"
    request.entitlement = String(repeating: "e", count: 130)
    var written: [UInt8] = []
    RequestEncoder.appendIsSubscriber(
      to: &written, requestId: 1, userPrefix: Array(prefix.utf8), userNumber: 42,
      entitlement: Array(request.entitlement.utf8))
    #expect(written == Self.frame(method: 0, id: 1, payload: try request.serializedBytes()))
  }

  @Test("GetSubscription, appended after another frame")
  func getSubscription() throws {
    var request = Tollgate_V1_GetSubscriptionRequest()
    request.userID = "u-1000"
    var written: [UInt8] = [0xFF]
    RequestEncoder.appendGetSubscription(to: &written, requestId: 9, userPrefix: Array("u-".utf8), userNumber: 1000)
    #expect(written == [0xFF] + Self.frame(method: 1, id: 9, payload: try request.serializedBytes()))
  }

  @Test("the method indexes are the proto's")
  func methods() {
    #expect(RequestEncoder.isSubscriberMethod == EntitlementsMethod.isSubscriber.rawValue)
    #expect(RequestEncoder.getSubscriptionMethod == EntitlementsMethod.getSubscription.rawValue)
  }
}
