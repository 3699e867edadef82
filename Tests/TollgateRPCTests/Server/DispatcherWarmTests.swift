import NIOCore
import Synchronization
import Testing
import TollgateTesting

@testable import TollgateRPC

@Suite("Warming a read's IsSubscriber requests")
struct DispatcherWarmTests {
  /// Records the user ids it is asked to warm.
  final class RecordingHandler: EntitlementsHandler {
    let warmed = Mutex<[[String]]>([])

    func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse { .init() }
    func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse { .init() }
    func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest) async -> Tollgate_V1_SubmitPurchaseResponse { .init() }
    func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse { .init() }
    func warm(userIds: UnsafeBufferPointer<UnsafeRawBufferPointer>) {
      let ids = userIds.map { String(decoding: $0, as: UTF8.self) }
      warmed.withLock { $0.append(ids) }
    }
  }

  @Test("the user ids of the complete IsSubscriber frames, other methods and broken payloads skipped")
  func warmsCompleteFrames() throws {
    let handler = RecordingHandler()
    let dispatcher = EntitlementsDispatcher(handler: handler)
    let complete =
      try RequestFrames.isSubscriber(id: 1, user: "a") + RawWire.request(methodIndex: 3, requestId: 2, payload: [])
      + RawWire.request(methodIndex: 0, requestId: 3, payload: [0xFF, 0xFF]) + RequestFrames.isSubscriber(id: 4, user: "b")
    let partial = Array(try RequestFrames.isSubscriber(id: 5, user: "c").dropLast(2))
    dispatcher.warm(ByteBuffer(bytes: complete + partial), maximumPayloadLength: 1 << 20)
    #expect(handler.warmed.withLock { $0 } == [["a", "b"]])
  }

  @Test("nothing to warm: one request, an oversized header, garbage")
  func skips() throws {
    let handler = RecordingHandler()
    let dispatcher = EntitlementsDispatcher(handler: handler)
    dispatcher.warm(ByteBuffer(bytes: try RequestFrames.isSubscriber(id: 1, user: "a")), maximumPayloadLength: 1 << 20)
    dispatcher.warm(
      ByteBuffer(bytes: RawWire.header(methodIndex: 0, requestId: 1, length: 5_000) + [UInt8](repeating: 0, count: 64)),
      maximumPayloadLength: 1_000)
    dispatcher.warm(ByteBuffer(bytes: [UInt8](repeating: 0xFF, count: 100)), maximumPayloadLength: 1 << 20)
    #expect(handler.warmed.withLock { $0 }.isEmpty)
  }
}
