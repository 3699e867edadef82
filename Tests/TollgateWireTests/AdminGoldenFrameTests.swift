import NIOCore
import Testing
import TollgateContract
import TollgateTesting
import TollgateWire

/// The admin methods' golden frames (issue 28): a LookUp request (method 6) and a Grant answer
/// (method 9), written by hand from docs/protocol.md.
@Suite("Admin golden frames")
struct AdminGoldenFrameTests {
  @Test("a LookUp request encodes as the golden bytes, at method index 6")
  func lookUpRequest() throws {
    let request = Tollgate_V1_LookUpRequest.with {
      $0.identifier = "MK5TTTVWJH"
      $0.kind = .appStoreOrderID
    }
    var buffer = ByteBuffer()
    buffer.writeRequestFrame(
      methodIndex: EntitlementsMethod.lookUp.rawValue, requestId: 11, payload: try request.serializedBytes() as [UInt8])
    #expect(Array(buffer.readableBytesView) == (try GoldenFrames.bytes("request-look-up.hex")))
  }

  @Test("a Grant answer encodes as the golden bytes and decodes back, at method index 9")
  func grantResponse() throws {
    let response = Tollgate_V1_GrantResponse.with {
      $0.grantID = "g-17"
      $0.entitlements = [
        .with {
          $0.entitlement = "premium"
          $0.active = true
          $0.expiresAtMs = 1_700_000_000_000
          $0.state = .active
          $0.store = .promotional
          $0.storeSubscriptionID = "g-17"
        }
      ]
    }
    var buffer = ByteBuffer()
    try buffer.writeResponseFrame(methodIndex: EntitlementsMethod.grant.rawValue, requestId: 12, message: response)
    let golden = try GoldenFrames.bytes("response-success-grant.hex")
    #expect(Array(buffer.readableBytesView) == golden)
    #expect(try Tollgate_V1_GrantResponse(serializedBytes: Array(golden.dropFirst(16))) == response)
  }
}
