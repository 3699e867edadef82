import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateCrypto
import TollgateTesting

/// The worker's notification endpoints verify before they store (issue 17, "the worker's edges"):
/// forged App Store notifications cost a signature check and no disk, and a forgery that claims a
/// genuine notification's UUID cannot make the genuine delivery a duplicate.
@Suite("Notifications verified before they are stored", .serialized)
struct NotificationAdmissionEndToEndTests {
  static func forgedV2(uuid: String) throws -> Data {
    let header = Base64URL.encode(Array(#"{"alg":"ES256","x5c":["AAAA"]}"#.utf8))
    let claims: [String: Any] = [
      "notificationType": "DID_CHANGE_RENEWAL_STATUS", "notificationUUID": uuid,
      "data": ["bundleId": Stack.bundleId, "environment": "Sandbox"], "signedDate": 1,
    ]
    let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
    return try JSONSerialization.data(withJSONObject: ["signedPayload": "\(header).\(payload).c2lnbmF0dXJl"])
  }

  @Test("each store's route takes at most what that store sends: larger bodies are refused with 413, nothing stored")
  func bodyBoundsPerStore() async throws {
    try await withStack(Self.bodyBoundsPerStore)
  }

  static func bodyBoundsPerStore(_ stack: Stack) async throws {
    let port = await stack.local.workerPort
    let before = try await stack.worker.storage.inboxCounts()
    // Under the worker's 1 MiB bound, over each route's own: Apple V2 128 KiB, Google 64 KiB,
    // Amazon 512 KiB (issue 25: a forged body should cost no more than what the store could send).
    for (path, bytes) in [
      ("/notifications/apple/v2", 200 << 10), ("/notifications/google", 100 << 10),
      ("/notifications/amazon", 600 << 10),
    ] {
      let body = Data(#"{"x":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: bytes) + Data(#""}"#.utf8)
      let answer = try await httpRequest("POST", port: port, path: path, body: body)
      #expect(answer.status == 413, "\(path) with \(bytes) bytes: \(answer.status)")
    }
    // Within the bounds a stranger's body is read, and refused by what it is.
    for path in ["/notifications/google", "/notifications/amazon"] {
      let answer = try await httpRequest("POST", port: port, path: path, body: Data(#"{"x":"a"}"#.utf8))
      #expect(answer.status != 413 && answer.status >= 400, "\(path): \(answer.status)")
    }
    #expect(try await stack.worker.storage.inboxCounts() == before)
  }

  @Test("a forged V2 notification is refused and not stored; it cannot shadow the genuine one with its UUID")
  func forgedCannotShadowGenuine() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.buyAndSubmit(userId: "alice")
      try await stack.settle()
      let port = await stack.local.workerPort
      let before = try await stack.worker.storage.inboxCounts()

      let unknown = try await httpRequest(
        "POST", port: port, path: "/notifications/apple/v2", body: try Self.forgedV2(uuid: UUID().uuidString))
      #expect(unknown.status == 403)
      let garbage = try await httpRequest(
        "POST", port: port, path: "/notifications/apple/v2", body: Data("not json".utf8))
      #expect(garbage.status == 400)
      let v1 = try await httpRequest(
        "POST", port: port, path: "/notifications/apple/v1",
        body: Data(#"{"bid":"com.example.app","password":"wrong","notification_type":"CANCEL"}"#.utf8))
      #expect(v1.status == 403)
      #expect(try await stack.worker.storage.inboxCounts() == before)

      // Apple's genuine notification is lost on the way (dropped); a forger who learnt its UUID
      // posts first; then the genuine body arrives after all.
      try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: 1))
      _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
      let genuine = try #require(stack.sim.notifications.last { $0.store == "apple" })
      #expect(genuine.state == "dropped")
      let shadow = try await httpRequest(
        "POST", port: port, path: "/notifications/apple/v2", body: try Self.forgedV2(uuid: genuine.notificationUUID))
      #expect(shadow.status == 403)
      #expect(try await stack.answer("alice").willRenew, "nothing has told the worker yet")
      let delivered = try await httpRequest(
        "POST", port: port, path: "/notifications/apple/v2", body: Data(genuine.body.utf8))
      #expect(delivered.status == 200)
      #expect(!(try await stack.until("alice") { !$0.willRenew }.willRenew), "the genuine notification was applied")
    }
  }
}
