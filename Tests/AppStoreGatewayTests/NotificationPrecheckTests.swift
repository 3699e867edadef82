import AppStore
import Foundation
import Synchronization
import Testing
import TollgateCrypto
import TollgateWorker

@testable import AppStoreGateway

/// Issue 25 ("Also"): a forged ~0.9 MB App Store body cost the worker 0.14–0.24 CPU-seconds
/// before it was refused. The body's size and its JWS header's shape are checked before anything
/// is decoded or any certificate parsed: a body that fails never reaches the verifier.
@Suite("App Store notification pre-check")
struct NotificationPrecheckTests {
  /// A certificate-sized base64 string (Apple's are 0.8–1.5 KB).
  static let certificate = String(repeating: "MIIB", count: 300)

  /// `{"signedPayload": "<header>.<payload>.<signature>"}` with Apple's header shape unless changed.
  static func body(
    header: [String: Any] = ["alg": "ES256", "x5c": [certificate, certificate, certificate]],
    payloadBytes: Int = 200, signatureBytes: Int = 64
  ) throws -> [UInt8] {
    let headerSegment = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: header)))
    let claims: [String: Any] = [
      "notificationType": "DID_RENEW", "notificationUUID": "u-1",
      "data": ["bundleId": "com.example.app", "padding": String(repeating: "x", count: payloadBytes)],
    ]
    let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
    let signature = Base64URL.encode([UInt8](repeating: 7, count: signatureBytes))
    return Array(
      try JSONSerialization.data(withJSONObject: ["signedPayload": "\(headerSegment).\(payload).\(signature)"]))
  }

  /// Runs the route's admission with a verifier stand-in that counts its calls.
  static func admit(_ body: [UInt8]) async -> (admission: NotificationAdmission, verifierCalls: Int) {
    let calls = Atomic<Int>(0)
    let admission = await AppStoreGateway.admitV2(body) { _ in
      calls.add(1, ordering: .relaxed)
      return .store(dedupeKey: "verified")
    }
    return (admission, calls.load(ordering: .relaxed))
  }

  static func code(_ body: [UInt8]) -> VerificationError.Code? {
    do {
      _ = try NotificationBodyPrecheck.signedPayload(ofBody: body)
      return nil
    } catch {
      return error.code
    }
  }

  static func status(_ admission: NotificationAdmission) -> Int? {
    if case .refuse(let status, _) = admission { return status }
    return nil
  }

  @Test("a body shaped as Apple's reaches the verifier once")
  func wellShaped() async throws {
    let body = try Self.body()
    #expect(Self.code(body) == nil)
    let (admission, calls) = await Self.admit(body)
    #expect(calls == 1)
    guard case .store = admission else {
      Issue.record("refused: \(admission)")
      return
    }
  }

  @Test("a forged ~0.9 MB body is refused as oversized (413) and never reaches the verifier")
  func oversizedBody() async throws {
    let body = try Self.body(payloadBytes: 900_000)
    #expect(body.count > 900_000)
    #expect(Self.code(body) == .oversized)
    let (admission, calls) = await Self.admit(body)
    #expect(Self.status(admission) == 413)
    #expect(calls == 0)
  }

  /// Headers Apple does not sign with, by name, and the typed error each is refused with.
  static let oddHeaders: [String: ([String: any Sendable], VerificationError.Code)] = [
    "alg none": (["alg": "none", "x5c": [certificate, certificate, certificate]], .unsupportedAlgorithm),
    "alg HS256": (["alg": "HS256", "x5c": [certificate, certificate, certificate]], .unsupportedAlgorithm),
    "no x5c": (["alg": "ES256"], .missingCertificateChain),
    "one certificate": (["alg": "ES256", "x5c": [certificate]], .invalidChainLength),
    "40 certificates": (["alg": "ES256", "x5c": Array(repeating: certificate, count: 40)], .oversized),
    "a 6 KB certificate": (
      ["alg": "ES256", "x5c": [certificate, String(repeating: "A", count: 6_000), certificate]], .oversized
    ),
    "an empty certificate": (["alg": "ES256", "x5c": [certificate, "", certificate]], .oversized),
    "a 9 KB extra field": (
      ["alg": "ES256", "x5c": [certificate, certificate, certificate], "pad": String(repeating: "p", count: 9_000)],
      .oversized
    ),
  ]

  @Test(
    "a header Apple does not sign with is refused with its typed error before the verifier",
    arguments: oddHeaders.keys.sorted())
  func oddHeader(name: String) async throws {
    let (header, expected) = try #require(Self.oddHeaders[name])
    let body = try Self.body(header: header)
    #expect(body.count < NotificationBodyPrecheck.maxBodyBytes)
    #expect(Self.code(body) == expected)
    let (admission, calls) = await Self.admit(body)
    #expect(Self.status(admission) == 403)
    #expect(calls == 0)
  }

  @Test("a signature that is not 64 bytes, or a body that is not a compact JWS, never reaches the verifier")
  func oddSegments() async throws {
    let shortSignature = try Self.body(signatureBytes: 12)
    #expect(Self.code(shortSignature) == .signatureMismatch)
    #expect(await Self.admit(shortSignature).verifierCalls == 0)
    for malformed in [
      Array("not json".utf8), Array(#"{"signedPayload": "a.b"}"#.utf8),
      Array(#"{"signedPayload": "@@.e30.c2ln"}"#.utf8),
      Array(#"{"other": 1}"#.utf8),
    ] {
      let (admission, calls) = await Self.admit(malformed)
      #expect(Self.status(admission) == 400, "\(String(decoding: malformed, as: UTF8.self))")
      #expect(calls == 0)
    }
  }
}
