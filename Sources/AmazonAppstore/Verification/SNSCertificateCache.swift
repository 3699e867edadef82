import AsyncHTTPClient
import Logging
import NIOCore
import TollgateCrypto

/// SNS signing certificates by URL, for the worker: a URL the policy allows is fetched once and
/// kept (SNS never changes the certificate behind a URL; a new certificate gets a new URL); any
/// other URL is refused without a request.
///
/// One fetch per URL is in flight at a time: callers that arrive during it wait for its result. A
/// failed fetch is not kept, so the next message tries again.
public actor SNSCertificateCache {
  public struct Config: Sendable, Hashable {
    public var policy: SNSCertificatePolicy
    /// How long one fetch may take.
    public var timeout: Duration
    /// How many certificates are kept (SNS uses a handful at a time); the oldest go first.
    public var capacity: Int

    public init(
      policy: SNSCertificatePolicy = SNSCertificatePolicy(), timeout: Duration = .seconds(10), capacity: Int = 32
    ) {
      self.policy = policy
      self.timeout = timeout
      self.capacity = max(1, capacity)
    }
  }

  public nonisolated let config: Config
  private let httpClient: HTTPClient
  private let logger: Logger
  static let maximumBodyBytes = 64 << 10

  private var certificates: [String: Certificate] = [:]
  /// URLs in the order they were cached, oldest first.
  private var order: [String] = []
  /// Callers waiting for a fetch in flight, by URL.
  private var waiters: [String: [CheckedContinuation<Result<Certificate, SNSVerificationError>, Never>]] = [:]

  public init(config: Config, httpClient: HTTPClient, logger: Logger) {
    self.config = config
    self.httpClient = httpClient
    self.logger = logger
  }

  /// The certificate at `url`: cached, or fetched when the policy allows the URL.
  public func certificate(for url: String) async -> Result<Certificate, SNSVerificationError> {
    guard config.policy.allowsCertificateURL(url) else {
      return .failure(
        SNSVerificationError(code: .untrustedCertificateURL, message: "SigningCertURL \(url) is not an SNS URL"))
    }
    if let cached = certificates[url] { return .success(cached) }
    if waiters[url] != nil {
      return await withCheckedContinuation { waiters[url, default: []].append($0) }
    }
    waiters[url] = []
    let result = await fetch(url)
    if case .success(let certificate) = result { keep(certificate, for: url) }
    let waiting = waiters.removeValue(forKey: url) ?? []
    for waiter in waiting { waiter.resume(returning: result) }
    return result
  }

  private func keep(_ certificate: Certificate, for url: String) {
    certificates[url] = certificate
    order.append(url)
    while order.count > config.capacity { certificates[order.removeFirst()] = nil }
  }

  private func fetch(_ url: String) async -> Result<Certificate, SNSVerificationError> {
    let unavailable = { (message: String) in SNSVerificationError(code: .certificateUnavailable, message: message) }
    let response: HTTPClientResponse
    let body: ByteBuffer
    do {
      response = try await httpClient.execute(
        HTTPClientRequest(url: url), timeout: .nanoseconds(config.timeout.nanoseconds))
      body = try await response.body.collect(upTo: Self.maximumBodyBytes)
    } catch {
      logger.warning("cannot fetch an SNS signing certificate", metadata: ["sns.cert_url": "\(url)"])
      return .failure(unavailable("no answer from \(url)"))
    }
    guard response.status == .ok else {
      logger.warning(
        "cannot fetch an SNS signing certificate",
        metadata: ["sns.cert_url": "\(url)", "http.status": "\(response.status.code)"])
      return .failure(unavailable("\(url) answered \(response.status.code)"))
    }
    do {
      let certificate = try Certificate(pem: String(decoding: body.readableBytesView, as: UTF8.self))
      logger.debug("fetched an SNS signing certificate", metadata: ["sns.cert_url": "\(url)"])
      return .success(certificate)
    } catch {
      return .failure(unavailable("\(url) answered no PEM certificate"))
    }
  }
}
