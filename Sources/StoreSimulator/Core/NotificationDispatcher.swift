import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization

/// A notification a store produced at a virtual moment, ready to POST.
struct OutgoingNotification: Sendable {
  var store: String
  var url: String
  var body: [UInt8]
  var notificationUUID: String
  var notificationType: String
  var subtype: String?
  var subject: String
  var virtualTimeMs: Int64
  /// Called for each attempt: the bearer token to send (Google's Pub/Sub push authentication).
  var bearerToken: (@Sendable () async -> String)? = nil
  /// Headers to send; `Content-Type` defaults to `application/json` (Amazon SNS sends
  /// `text/plain; charset=UTF-8` and its `x-amz-sns-*` headers).
  var headers: [(String, String)] = []
}

/// What happened to one notification: every delivery attempt, in real time.
public struct NotificationRecord: Sendable, Hashable, Codable {
  public struct Attempt: Sendable, Hashable, Codable {
    public var realTimeMs: Int64
    /// The receiver's HTTP status, or `nil` when there was no answer.
    public var httpStatus: Int?
    public var error: String?
  }

  /// Position in the log (a duplicate delivery gets its own record with the same UUID).
  public var sequence: Int
  public var store: String
  public var url: String
  public var notificationUUID: String
  public var notificationType: String
  public var subtype: String?
  /// The original transaction id (or the store's equivalent) it is about.
  public var subject: String
  public var virtualTimeMs: Int64
  /// `pending`, `delivered`, `failed` (retries exhausted), `dropped` (fault), `held` (reorder fault).
  public var state: String
  /// The fault applied, if any.
  public var fault: String?
  public var attempts: [Attempt]
  /// The exact body that was (or would have been) posted.
  public var body: String
}

/// Delivers notifications in order, the first attempt while the caller waits (so that after
/// `advance` returns, the receiver has seen what happened), retries on non-2xx in the
/// background with bounded real-time backoff, and applies the `*.notifications` faults.
final class NotificationDispatcher: Sendable {
  private struct State {
    var log: [NotificationRecord] = []
    var held: [(OutgoingNotification, Int)] = []
    var retries: [Int: Task<Void, Never>] = [:]
  }

  private let state = Mutex(State())
  private let httpClient: HTTPClient
  private let faults: FaultInjector
  private let retryDelaysMs: [Int64]
  private let timeoutMs: Int64
  private let logger: Logger

  init(httpClient: HTTPClient, faults: FaultInjector, retryDelaysMs: [Int64], timeoutMs: Int64, logger: Logger) {
    self.httpClient = httpClient
    self.faults = faults
    self.retryDelaysMs = retryDelaysMs
    self.timeoutMs = timeoutMs
    self.logger = logger
  }

  var log: [NotificationRecord] { state.withLock { $0.log } }

  func clearLog() { state.withLock { $0.log.removeAll() } }

  /// Cancels pending retries and waits for them.
  func shutdown() async {
    let tasks = state.withLock { state in
      defer { state.retries.removeAll() }
      return Array(state.retries.values)
    }
    for task in tasks {
      task.cancel()
      _ = await task.value
    }
  }

  func deliver(_ batch: [OutgoingNotification]) async {
    for notification in batch {
      let fault = faults.take("\(notification.store).notifications", request: notification.notificationType)
      let sequence = record(notification, fault: fault?.mode.rawValue)
      switch fault?.mode {
      case .drop?:
        update(sequence) { $0.state = "dropped" }
        logger.info("notification dropped (fault)", metadata: ["notification.type": "\(notification.notificationType)"])
        continue
      case .reorder?:
        update(sequence) { $0.state = "held" }
        state.withLock { $0.held.append((notification, sequence)) }
        continue
      case .slow?:
        try? await Task.sleep(for: .milliseconds(fault?.delayMs ?? 2_000))
      case .error500?, .rateLimit?:
        // A store's own trouble before sending: the first attempt fails, the retries go on.
        update(sequence) {
          $0.attempts.append(
            .init(realTimeMs: Self.realNowMs(), httpStatus: nil, error: "fault \(fault?.mode.rawValue ?? "")"))
        }
        scheduleRetry(notification, sequence: sequence, attempt: 0)
        continue
      default:
        break
      }
      await attempt(notification, sequence: sequence, retryIndex: 0)
      if fault?.mode == .duplicate {
        let duplicate = record(notification, fault: "duplicate")
        await attempt(notification, sequence: duplicate, retryIndex: 0)
      }
      let held = state.withLock { state in
        defer { state.held.removeAll() }
        return state.held
      }
      for (late, lateSequence) in held {
        update(lateSequence) { $0.state = "pending" }
        await attempt(late, sequence: lateSequence, retryIndex: 0)
      }
    }
  }

  private func record(_ notification: OutgoingNotification, fault: String?) -> Int {
    state.withLock { state in
      let sequence = state.log.count
      state.log.append(
        NotificationRecord(
          sequence: sequence, store: notification.store, url: notification.url,
          notificationUUID: notification.notificationUUID, notificationType: notification.notificationType,
          subtype: notification.subtype, subject: notification.subject, virtualTimeMs: notification.virtualTimeMs,
          state: "pending", fault: fault, attempts: [], body: String(decoding: notification.body, as: UTF8.self)))
      return sequence
    }
  }

  private func update(_ sequence: Int, _ change: (inout NotificationRecord) -> Void) {
    state.withLock { state in
      if state.log.indices.contains(sequence) { change(&state.log[sequence]) }
    }
  }

  private func attempt(_ notification: OutgoingNotification, sequence: Int, retryIndex: Int) async {
    var request = HTTPClientRequest(url: notification.url)
    request.method = .POST
    let contentType = notification.headers.first { $0.0.lowercased() == "content-type" }?.1 ?? "application/json"
    request.headers.add(name: "Content-Type", value: contentType)
    for (name, value) in notification.headers where name.lowercased() != "content-type" {
      request.headers.add(name: name, value: value)
    }
    if let bearerToken = notification.bearerToken {
      request.headers.add(name: "Authorization", value: "Bearer \(await bearerToken())")
    }
    request.body = .bytes(ByteBuffer(bytes: notification.body))
    var status: Int?
    var failure: String?
    do {
      let response = try await httpClient.execute(request, timeout: .milliseconds(timeoutMs))
      _ = try await response.body.collect(upTo: 1 << 20)
      status = Int(response.status.code)
    } catch {
      failure = "\(error)"
    }
    let delivered = status.map { (200..<300).contains($0) } ?? false
    update(sequence) {
      $0.attempts.append(.init(realTimeMs: Self.realNowMs(), httpStatus: status, error: failure))
      $0.state = delivered ? "delivered" : "pending"
    }
    if !delivered {
      logger.debug(
        "notification not accepted",
        metadata: ["notification.type": "\(notification.notificationType)", "http.status": "\(status ?? 0)"])
      scheduleRetry(notification, sequence: sequence, attempt: retryIndex)
    }
  }

  private func scheduleRetry(_ notification: OutgoingNotification, sequence: Int, attempt: Int) {
    guard attempt < retryDelaysMs.count else {
      update(sequence) { $0.state = "failed" }
      return
    }
    let delay = retryDelaysMs[attempt]
    // Kept in `retries` and cancelled by `stop()`: not fire-and-forget.
    let task = Task { [self] in
      try? await Task.sleep(for: .milliseconds(delay))
      if Task.isCancelled { return }
      await self.attempt(notification, sequence: sequence, retryIndex: attempt + 1)
    }
    state.withLock { $0.retries[sequence] = task }
  }

  static func realNowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
