import AmazonAppstore
import AsyncHTTPClient
import Foundation
import Logging
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("SNS certificate URLs and the certificate cache", .serialized)
struct SNSCertificateTests {
  @Test(
    "SNS's own certificate URLs are allowed",
    arguments: [
      "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-a86cb10b4e1f29c941702d737128f7b6.pem",
      "https://sns.us-east-2.amazonaws.com/SimpleNotificationService-7ff5318490ec183fbaddaa2a969abfda.pem",
      "https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-3250158c6b2a1d6f2e3c4a5b6c7d8e9f.pem",
      "https://SNS.eu-west-1.AMAZONAWS.com/SimpleNotificationService-x.pem",
      "https://sns.us-east-1.amazonaws.com:443/SimpleNotificationService-x.pem",
    ])
  func allowed(_ url: String) {
    #expect(SNSCertificatePolicy().allowsCertificateURL(url))
  }

  static let refusedURLs = [
    "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.pem",
    "https://sns.us-east-1.amazonaws.com.evil.com/SimpleNotificationService-x.pem",
    "https://evil.com/sns.us-east-1.amazonaws.com/x.pem",
    "https://sns.us-east-1.amazonaws.com@evil.com/x.pem",
    "https://user:pw@sns.us-east-1.amazonaws.com/x.pem",
    "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.txt",
    "https://sns.us-east-1.amazonaws.com/",
    "https://sns.us-east-1.amazonaws.com/x.pem?y=1",
    "https://sns.us-east-1.amazonaws.com/x.pem#z",
    "https://sns.us-east-1.amazonaws.com:8443/x.pem",
    "https://sns.amazonaws.com/x.pem",
    "https://sns.x.amazonaws.com/x.pem",
    "https://evilsns.us-east-1.amazonaws.com/x.pem",
    "https://s3.us-east-1.amazonaws.com/sns.us-east-1.amazonaws.com/x.pem",
    "https://sns.us-east-1.amazonaws.com\\@evil.com/x.pem",
    "ftp://sns.us-east-1.amazonaws.com/x.pem",
    "sns.us-east-1.amazonaws.com/x.pem",
    "",
  ]

  @Test("other schemes, hosts, user info, ports and non-.pem paths are refused", arguments: refusedURLs)
  func refused(_ url: String) {
    #expect(!SNSCertificatePolicy().allowsCertificateURL(url))
  }

  static func cache(_ server: ScriptedHTTPServer) -> SNSCertificateCache {
    SNSCertificateCache(
      config: .init(policy: SNSCertificatePolicy(trustedURLPrefixes: [server.baseURL + "/sns"]), timeout: .seconds(5)),
      httpClient: .shared, logger: Logger(label: "test.sns"))
  }

  @Test("a refused URL is never fetched: the scripted server sees no request (and an allowed one is)")
  func refusedWithoutFetch() async throws {
    let server = try await ScriptedHTTPServer.start()
    let cache = Self.cache(server)
    let base = server.baseURL
    let local = [
      "\(base)/other/cert.pem", "\(base)/sns/cert.txt", "\(base)/sns/../cert.pem", "\(base)/sns/cert.pem?x=1",
      "\(base)/snsx/cert.pem", "http://user@127.0.0.1:\(server.port)/sns/cert.pem",
      "https://127.0.0.1:\(server.port)/sns/cert.pem",
    ]
    for url in Self.refusedURLs + local {
      server.enqueue("GET", URL(string: url)?.path ?? "/", .init(status: 200, body: Array("x".utf8)))
      let result = await cache.certificate(for: url)
      guard case .failure(let error) = result else {
        Issue.record("\(url) was allowed")
        continue
      }
      #expect(error.code == .untrustedCertificateURL, "\(url)")
      #expect(!error.isTransient)
    }
    #expect(server.recorded.isEmpty)
    // The control: the same cache does fetch a URL under the trusted prefix.
    server.enqueue("GET", "/sns/good.pem", .init(status: 404))
    _ = await cache.certificate(for: "\(base)/sns/good.pem")
    #expect(server.recorded.map(\.path) == ["/sns/good.pem"])
    await server.stop()
  }

  @Test("fetched once, kept, one fetch for callers at once; a failure is transient and not kept")
  func cacheAndSingleFlight() async throws {
    let server = try await ScriptedHTTPServer.start()
    let cache = Self.cache(server)
    let signer = try TestSNSSigner()
    let pem = Array(signer.certificate.pemRepresentation.utf8)
    let url = "\(server.baseURL)/sns/SimpleNotificationService-test.pem"
    server.enqueue("GET", "/sns/bad.pem", .init(status: 503))
    server.enqueue("GET", "/sns/bad.pem", .init(status: 200, body: pem))
    server.enqueue(
      "GET", "/sns/SimpleNotificationService-test.pem", .init(status: 200, body: pem, delay: .milliseconds(200)))
    async let first = cache.certificate(for: url)
    async let second = cache.certificate(for: url)
    let (a, b) = await (first, second)
    #expect(try a.get().der == signer.certificate.der)
    #expect(try b.get().der == signer.certificate.der)
    #expect(try await cache.certificate(for: url).get().der == signer.certificate.der)
    #expect(server.recorded.count == 1)

    guard case .failure(let error) = await cache.certificate(for: "\(server.baseURL)/sns/bad.pem") else {
      Issue.record("a 503 gave a certificate")
      await server.stop()
      return
    }
    #expect(error.code == .certificateUnavailable)
    #expect(error.isTransient)
    #expect(try await cache.certificate(for: "\(server.baseURL)/sns/bad.pem").get().der == signer.certificate.der)
    #expect(server.recorded.count == 3)
    await server.stop()
  }

  @Test("end to end: a message whose SigningCertURL is fetched through the cache verifies; a tampered one does not")
  func verifyThroughCache() async throws {
    let server = try await ScriptedHTTPServer.start()
    let cache = Self.cache(server)
    let signer = try TestSNSSigner()
    server.enqueue("GET", "/sns/cert.pem", .init(status: 200, body: Array(signer.certificate.pemRepresentation.utf8)))
    let verifier = SNSMessageVerifier(allowedTopicArns: [TestSNSSigner.topic], policy: cache.config.policy)
    let message = try signer.sign(
      TestSNSSigner.notification(certURL: "\(server.baseURL)/sns/cert.pem", rtn: #"{"receiptId":"r1"}"#))
    let verified = try await verifier.verify(message, certificates: cache).get()
    #expect(verified.amazonNotification?.receiptId == "r1")
    var tampered = message
    tampered.message = #"{"receiptId":"r2"}"#
    guard case .failure(let error) = await verifier.verify(tampered, certificates: cache) else {
      Issue.record("a tampered message verified")
      await server.stop()
      return
    }
    #expect(error.code == .badSignature)
    #expect(server.recorded.count == 1)
    await server.stop()
  }
}
