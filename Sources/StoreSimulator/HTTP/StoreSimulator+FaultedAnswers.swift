import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// The one place a store request meets the fault rules: the real answer, or what the rule for
/// its target makes of it (docs/storesim.md, "Faults").
extension StoreSimulator {
  /// Answers a request to `target` (`apple.api`, `apple.verifyReceipt`, `google.api`,
  /// `google.token`). `real` computes the
  /// store's own answer; it is not called when a fault answers instead. Every real `200` of a
  /// target that takes `stale` is remembered under the request's path and query.
  /// - Parameter requestKey: how the request is named in the applied-fault log and the `stale`
  ///   cache; the path and query by default (Amazon RVS passes one without the shared secret).
  func storeAnswer(
    _ target: String, _ request: Request, _ context: SimRequestContext, requestKey: String? = nil,
    real: () async -> StoreAnswer
  ) async -> Response {
    let key = requestKey ?? request.uri.description
    let remembers = FaultRule.modes(for: target).contains(.stale)
    let fault = faults.take(target, request: key) { rule in rule.mode != .stale || answers.contains(key) }
    requests.record(
      StoreRequestRecord(
        target: target, request: key, virtualTimeMs: clockNowMs, realTimeMs: NotificationDispatcher.realNowMs(),
        fault: fault?.mode))
    func realAnswer() async -> StoreAnswer {
      let answer = await real()
      if remembers, answer.status == .ok { answers.remember(answer, for: key) }
      return answer
    }
    guard let fault else { return await realAnswer().response }
    logger.debug("fault applied", metadata: ["sim.fault": "\(fault.mode.rawValue)", "sim.target": "\(target)"])
    if let google = StoreAnswer.googleFault(target, fault.mode, retryAfterSeconds: fault.retryAfterSeconds) {
      return google.response
    }
    if let amazon = StoreAnswer.amazonFault(target, fault) { return amazon.response }
    switch fault.mode {
    case .error500:
      return StoreAnswer.appleError(500, 5_000_000, "An unknown error occurred.").response
    case .rateLimit:
      return StoreAnswer.appleError(
        429, 4_290_000, "Rate limit exceeded.", headers: HTTPAnswer.retryAfter(fault.retryAfterSeconds)
      ).response
    case .slow:
      try? await Task.sleep(for: .milliseconds(fault.delayMs ?? 2_000))
      return await realAnswer().response
    case .stall:
      await stall(context.channel, capMs: fault.delayMs ?? FaultRule.defaultStallMs)
      return Self.unsent
    case .reset:
      await Self.reset(context.channel)
      return Self.unsent
    case .html200:
      return StoreAnswer(headers: [.contentType: "text/html; charset=utf-8"], body: Array(Self.portalPage.utf8))
        .response
    case .empty200:
      return StoreAnswer(headers: [.contentType: "application/json"], body: []).response
    case .truncatedJSON:
      var answer = await realAnswer()
      answer.body = Array(answer.body.prefix(answer.body.count / 2))
      return answer.response
    case .badSignature:
      var answer = await realAnswer()
      answer.body = JWSCorruption.corruptingSignatures(in: answer.body)
      return answer.response
    case .unauthorized:
      return StoreAnswer.appleError(401, 4_010_000, "Unauthenticated").response
    case .notFound:
      return StoreAnswer.appleError(404, 4_040_010, "Transaction id not found.").response
    case .stale:
      if let remembered = answers.answer(for: key) { return remembered.response }
      return await realAnswer().response
    case .drop, .duplicate, .reorder:
      return await realAnswer().response
    }
  }

  /// Holds the request unanswered until the client closes its connection, the simulator stops,
  /// or `capMs` of real time have passed; then closes the connection without an answer.
  private func stall(_ channel: any Channel, capMs: Int) async {
    let deadline = ContinuousClock.now + .milliseconds(capMs)
    while ContinuousClock.now < deadline, !faults.stallsReleased, !Task.isCancelled,
      await Self.peerIsConnected(channel)
    {
      // A tenth of a second: a benchmark holds a hundred calls hung at once, each looked at here.
      try? await Task.sleep(for: .milliseconds(100))
    }
    await Self.reset(channel)
  }

  /// Whether the client still holds its end open. The server allows half-closed connections, so
  /// a client that gave up is seen in the TCP state (Linux), not in `isActive`.
  private static func peerIsConnected(_ channel: any Channel) async -> Bool {
    guard channel.isActive else { return false }
    #if os(Linux)
      guard let provider = channel as? any SocketOptionProvider,
        let info = try? await provider.getTCPInfo().get()
      else { return true }
      return info.tcpi_state == UInt8(TCP_ESTABLISHED)
    #else
      return true
    #endif
  }

  /// Closes the connection with a TCP reset (linger 0): the client sees no HTTP answer at all.
  private static func reset(_ channel: any Channel) async {
    if let provider = channel as? any SocketOptionProvider {
      _ = try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
    }
    try? await channel.close()
  }

  /// What the handler returns once the connection is closed: it is never sent.
  private static var unsent: Response { Response(status: .internalServerError) }

  static let portalPage = """
    <!DOCTYPE html>
    <html><head><title>Sign in to the network</title></head>
    <body><h1>Welcome</h1><p>Please accept the terms of use to continue.</p>
    <form method="post" action="/login"><button>Accept</button></form></body></html>

    """
}
