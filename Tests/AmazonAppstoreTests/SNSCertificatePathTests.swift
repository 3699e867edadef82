import AmazonAppstore
import Foundation
import Logging
import Testing
import TollgateTesting

/// Issue 25: an operator's trusted SNS certificate prefix was matched on the URL as written, so
/// `PREFIX%2e%2e/…` passed the prefix check and a server that decodes before it resolves served
/// a file outside the prefix. The path is now refused unless it reads the same everywhere: no
/// percent-escape, no backslash, no dot segment.
@Suite("SNS certificate URLs: paths that escape a trusted prefix", .serialized)
struct SNSCertificatePathTests {
  /// Paths under `PREFIX` (`http://127.0.0.1:PORT/sns/`) that leave it once a server decodes or
  /// resolves them.
  static let escapes = [
    "%2e%2e/admin/cert.pem", "%2E%2E/admin/cert.pem", ".%2e/admin/cert.pem", "%2e./admin/cert.pem",
    "a/%2e%2e/%2e%2e/admin/cert.pem", "../admin/cert.pem", "a/../../admin/cert.pem", "./cert.pem", "a/./cert.pem",
    "..%2fadmin/cert.pem", "a%2f..%2f..%2fadmin/cert.pem", "a%2F%2E%2E%2Fadmin/cert.pem", "%252e%252e/admin/cert.pem",
    "..\\admin\\cert.pem", "a\\..\\..\\admin\\cert.pem", "%5c..%5cadmin/cert.pem", "..%5cadmin/cert.pem",
    "%73ns-cert.pem", "a/..",
  ]

  @Test("a path that leaves the trusted prefix once decoded or resolved is refused", arguments: escapes)
  func refusedUnderPrefix(_ rest: String) {
    let prefix = "http://127.0.0.1:8080/sns/"
    let policy = SNSCertificatePolicy(trustedURLPrefixes: [prefix])
    #expect(!policy.allowsCertificateURL(prefix + rest), "\(prefix + rest)")
    #expect(!policy.allowsSubscribeURL(prefix + rest + "?Action=ConfirmSubscription"), "\(prefix + rest)")
  }

  @Test("the same tricks after Amazon's own SNS host are refused; SNS's real URLs still pass")
  func snsHost() {
    let policy = SNSCertificatePolicy()
    for rest in Self.escapes {
      #expect(!policy.allowsCertificateURL("https://sns.us-east-1.amazonaws.com/" + rest), "\(rest)")
    }
    #expect(policy.allowsCertificateURL("https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem"))
    #expect(
      policy.allowsSubscribeURL(
        "https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn%3Aaws%3Asns%3Aus-west-2%3A1%3At"
          + "&Token=2336412f37fb687f5d51e6e2425"))
    let local = SNSCertificatePolicy(trustedURLPrefixes: ["http://127.0.0.1:8080/sns/"])
    #expect(local.allowsCertificateURL("http://127.0.0.1:8080/sns/SimpleNotificationService-sim.pem"))
    #expect(local.allowsSubscribeURL("http://127.0.0.1:8080/sns/confirm?Token=abc%2Fdef&TopicArn=arn%3Aaws"))
  }

  @Test("through the certificate cache: nothing outside the prefix is ever fetched")
  func neverFetched() async throws {
    let server = try await ScriptedHTTPServer.start()
    let cache = SNSCertificateCache(
      config: .init(policy: SNSCertificatePolicy(trustedURLPrefixes: [server.baseURL + "/sns/"]), timeout: .seconds(5)),
      httpClient: .shared, logger: Logger(label: "test.sns"))
    for rest in Self.escapes {
      let url = "\(server.baseURL)/sns/\(rest)"
      server.enqueue("GET", "/admin/cert.pem", .init(status: 200, body: Array("x".utf8)))
      guard case .failure(let error) = await cache.certificate(for: url) else {
        Issue.record("\(url) was allowed")
        continue
      }
      #expect(error.code == .untrustedCertificateURL, "\(url)")
    }
    #expect(server.recorded.isEmpty, "\(server.recorded.map(\.path))")
    await server.stop()
  }
}
