import TollgateContract

extension RawWire {
  /// An Authenticate request frame (method 4) naming `caller` with `key`.
  public static func authenticate(id: UInt32, caller: String, key: String) throws -> [UInt8] {
    var request = Tollgate_V1_AuthenticateRequest()
    request.caller = caller
    request.key = key
    return RawWire.request(
      methodIndex: EntitlementsMethod.authenticate.rawValue, requestId: id, payload: try request.serializedBytes())
  }
}
