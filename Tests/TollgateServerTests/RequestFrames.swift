import TollgateContract
import TollgateTesting
import TollgateWire

/// Request payloads and frames the server tests send.
enum RequestFrames {
  static func isSubscriberPayload(user: String, entitlement: String = "premium") throws -> [UInt8] {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = user
    request.entitlement = entitlement
    return try request.serializedBytes()
  }

  static func isSubscriber(id: UInt32, user: String, entitlement: String = "premium") throws -> [UInt8] {
    RawWire.request(
      methodIndex: 0, requestId: id, payload: try isSubscriberPayload(user: user, entitlement: entitlement))
  }

  static func submitPurchase(id: UInt32) throws -> [UInt8] {
    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "u"
    return RawWire.request(methodIndex: 2, requestId: id, payload: try submit.serializedBytes())
  }
}
