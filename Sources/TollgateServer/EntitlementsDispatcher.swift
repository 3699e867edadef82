import CTollgateNet
import Logging
import NIOCore
import SwiftProtobuf
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateWire

/// Turns one request frame into its answer: decode, call the handler, encode. The only place that
/// maps a method index to code.
struct EntitlementsDispatcher: Sendable {
  let handler: any EntitlementsHandler
  /// The callers, the failed-authentication budget per source and the submission rate per
  /// caller, shared with the other doors.
  let gate: CallerGate
  /// `gate.access`, kept here so that the event loops' per-read check loads no more than before.
  let access: CallerAccess
  /// Failed Authenticate calls after which a connection is closed.
  let maximumFailedAuthentications: Int
  let logger: Logger
  /// Failed authentications reach the log a few times a minute per kind of failure, refused
  /// submissions per configured caller: keys from a small vocabulary, never a stranger's name.
  let logSampler = LogSampler(perMinute: 10)

  init(
    handler: any EntitlementsHandler, gate: CallerGate = RPCServer.Config.defaults.makeGate(),
    maximumFailedAuthentications: Int = 3, logger: Logger = Logger(label: "tollgate.rpc")
  ) {
    self.handler = handler
    self.gate = gate
    self.access = gate.access
    self.maximumFailedAuthentications = maximumFailedAuthentications
    self.logger = logger
  }

  enum Outcome {
    /// The answer frame is in the output buffer; how the call ended, for the metrics.
    case answered(CallOutcome)
    /// Answered later by running `work` off the event loop (not started yet, so the caller can
    /// refuse it); a thrown error answers `serviceFailed`.
    case deferred(@Sendable () async throws -> DeferredAnswer)
  }

  /// Appends the answer to `output`, or hands back the work of a deferred call. `caller` is the
  /// connection's: Authenticate changes it, every other call is checked against its scopes.
  func dispatch(
    methodIndex: UInt32, requestId: UInt32, payload: ByteBuffer, caller: inout ConnectionCaller,
    into output: inout ByteBuffer
  ) -> Outcome {
    guard let method = EntitlementsMethod(rawValue: methodIndex) else {
      output.writeResponseHeader(
        status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
      return .answered(.failed)
    }
    do {
      if method != .authenticate {
        if let refusal = refusal(of: method, by: caller.identity) {
          try output.writeResponseFrame(
            methodIndex: methodIndex, requestId: requestId, message: Self.errorResponse(for: method, refusal))
          return .answered(CallOutcome(refusal.code))
        }
      }
      let identity = caller.identity ?? .anyone
      switch method {
      case .isSubscriber:
        // Off the hot path: calls its handler left, and frames its scan did not take.
        let request = try Tollgate_V1_IsSubscriberRequest(serializedBytes: payload.readableBytesSpan)
        return try answer(handler.isSubscriber(request), methodIndex, requestId, into: &output)
      case .getSubscription:
        // The fast path first: the request read in place, the answer written from the index.
        if answerGetSubscription(payload, methodIndex: methodIndex, requestId: requestId, into: &output) {
          return .answered(.ok)
        }
        let request = try Tollgate_V1_GetSubscriptionRequest(serializedBytes: payload.readableBytesSpan)
        return try answer(handler.getSubscription(request), methodIndex, requestId, into: &output)
      case .health:
        let request = try Tollgate_V1_HealthRequest(serializedBytes: payload.readableBytesSpan)
        return try answer(handler.health(request), methodIndex, requestId, into: &output)
      case .authenticate:
        return try answer(authenticate(payload, caller: &caller), methodIndex, requestId, into: &output)
      case .submitPurchase:
        let request = try Tollgate_V1_SubmitPurchaseRequest(serializedBytes: payload.readableBytesSpan)
        if let refused = gate.refuseSubmission(by: identity) {
          // The sampler's key is a configured caller's name (or none): a bounded vocabulary.
          sampledWarning(
            "submissions over the caller's rate refused", key: "submit|\(identity.name ?? "")", caller: identity.name)
          var response = Tollgate_V1_SubmitPurchaseResponse()
          response.error = refused
          return try answer(response, methodIndex, requestId, into: &output)
        }
        let handler = self.handler
        // The fast port carries no headers: each submission gets a new request id.
        let requestId = RequestID.generated()
        return .deferred {
          try await handler.submitPurchase(request, caller: identity, requestId: requestId).deferredAnswer()
        }
      case .getSubmission:
        let request = try Tollgate_V1_GetSubmissionRequest(serializedBytes: payload.readableBytesSpan)
        let handler = self.handler
        return .deferred { try await handler.getSubmission(request, caller: identity).deferredAnswer() }
      case .lookUp, .getTimeline, .explain, .grant, .revoke, .reverify, .eraseUser:
        return try dispatchAdmin(method, requestId: requestId, payload: payload, caller: identity, into: &output)
      }
    } catch {
      // Undecodable payload (or, in theory, an unencodable response): the call fails, the
      // connection does not.
      output.writeResponseHeader(
        status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, messageLength: 0)
    }
    return .answered(.failed)
  }

  /// Writes `response`'s frame; how the call ended.
  private func answer(
    _ response: some CallResponse & SwiftProtobuf.Message, _ methodIndex: UInt32, _ requestId: UInt32,
    into output: inout ByteBuffer
  ) throws -> Outcome {
    try output.writeResponseFrame(methodIndex: methodIndex, requestId: requestId, message: response)
    return .answered(CallOutcome(response))
  }

  /// Why `identity` may not call `method`, or nil when it may: the gate's scope table
  /// (`CallerOperation`), answered in the method's response.
  func refusal(of method: EntitlementsMethod, by identity: CallerIdentity?) -> Tollgate_V1_Error? {
    guard let identity else {
      return Tollgate_V1_Error(.unauthenticated, "authenticate first (call Authenticate with a caller name and key)")
    }
    guard let operation = Self.operation(of: method), let refused = gate.authorize(identity, for: operation) else {
      return nil
    }
    return Tollgate_V1_Error(.permissionDenied, refused.message)
  }

  /// The caller operation a method is; nil for Authenticate, which needs no scope.
  static func operation(of method: EntitlementsMethod) -> CallerOperation? {
    switch method {
    case .isSubscriber: .isSubscriber
    case .getSubscription: .getSubscription
    case .health: .health
    case .submitPurchase: .submitPurchase
    case .getSubmission: .getSubmission
    case .lookUp: .lookUp
    case .getTimeline: .getTimeline
    case .explain: .explain
    case .grant: .grant
    case .revoke: .revoke
    case .reverify: .reverify
    case .eraseUser: .eraseUser
    case .authenticate: nil
    }
  }

  /// The method's response carrying only `error`.
  static func errorResponse(for method: EntitlementsMethod, _ error: Tollgate_V1_Error) -> any SwiftProtobuf.Message {
    switch method {
    case .isSubscriber: Tollgate_V1_IsSubscriberResponse.with { $0.error = error }
    case .getSubscription: Tollgate_V1_GetSubscriptionResponse.with { $0.error = error }
    case .submitPurchase: Tollgate_V1_SubmitPurchaseResponse.with { $0.error = error }
    case .health: Tollgate_V1_HealthResponse.with { $0.error = error }
    case .authenticate: Tollgate_V1_AuthenticateResponse.with { $0.error = error }
    case .getSubmission: Tollgate_V1_GetSubmissionResponse.with { $0.error = error }
    case .lookUp: Tollgate_V1_LookUpResponse.with { $0.error = error }
    case .getTimeline: Tollgate_V1_GetTimelineResponse.with { $0.error = error }
    case .explain: Tollgate_V1_ExplainResponse.with { $0.error = error }
    case .grant: Tollgate_V1_GrantResponse.with { $0.error = error }
    case .revoke: Tollgate_V1_RevokeResponse.with { $0.error = error }
    case .reverify: Tollgate_V1_ReverifyResponse.with { $0.error = error }
    case .eraseUser: Tollgate_V1_EraseUserResponse.with { $0.error = error }
    }
  }

  /// The most IsSubscriber calls answered together.
  static let batchLimit = 64

  /// The hot path: answers the IsSubscriber frames at the start of `bytes`, as many as follow
  /// one another complete and well-formed (up to `batchLimit`), together: frames → fields (read
  /// in place) → the handler's answers (values) → response frames. A call the handler leaves is
  /// answered here through the message path, and the rest of the run goes back to the handler,
  /// so the run is parsed once. Returns the length of the frames it answered (`consumed`, which
  /// the caller consumes) and how many calls the handler answered together (`answered`: the
  /// caller records them once their answers are sent); the few it left to the message path are
  /// recorded in `calls` here, timed from `startNs`. It stops at anything else (another method,
  /// an incomplete or oversized frame, a payload that does not decode): that is `dispatch`'s.
  func answerIsSubscriberCalls(
    in bytes: UnsafeRawBufferPointer, maximumPayloadLength: Int, into output: inout ByteBuffer,
    calls: CallCounters? = nil, startNs: UInt64 = 0
  ) -> (consumed: Int, answered: Int) {
    withUnsafeTemporaryAllocation(of: IsSubscriberFields.self, capacity: Self.batchLimit) { requests in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.batchLimit) { requestIds in
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.batchLimit) { payloads in
          let (count, consumed) = Self.scanIsSubscriberRun(
            in: bytes, maximumPayloadLength: maximumPayloadLength, requests: requests, requestIds: requestIds,
            payloads: payloads)
          var next = 0
          var answered = 0
          while next < count {
            let together = answerTogether(
              UnsafeBufferPointer(rebasing: requests[next..<count]),
              requestIds: UnsafeBufferPointer(rebasing: requestIds[next..<count]), into: &output)
            next += together
            answered += together
            guard next < count else { break }
            // Left to the message path (an invalid request, answered with its error). The hot path
            // runs only for connections that may read, so their caller is not changed here.
            var reader = ConnectionCaller.reader
            let outcome = dispatch(
              methodIndex: EntitlementsMethod.isSubscriber.rawValue, requestId: requestIds[next],
              payload: ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes[payloads[next]])), caller: &reader,
              into: &output)
            if let calls, case .answered(let ended) = outcome {
              calls.record(
                method: Int(EntitlementsMethod.isSubscriber.rawValue), outcome: ended,
                nanoseconds: tg_net_now_ns() &- startNs)
            }
            next += 1
          }
          return (consumed, answered)
        }
      }
    }
  }

  /// Reads the run of complete, well-formed IsSubscriber frames at the start of `bytes` into the
  /// three buffers; returns how many it read and the bytes they span.
  static func scanIsSubscriberRun(
    in bytes: UnsafeRawBufferPointer, maximumPayloadLength: Int,
    requests: UnsafeMutableBufferPointer<IsSubscriberFields>,
    requestIds: UnsafeMutableBufferPointer<UInt32>, payloads: UnsafeMutableBufferPointer<Range<Int>>
  ) -> (count: Int, consumed: Int) {
    scanRun(
      of: .isSubscriber, in: bytes, maximumPayloadLength: maximumPayloadLength, requests: requests,
      requestIds: requestIds, payloads: payloads, parse: IsSubscriberFields.init(parsing:))
  }

  /// Reads the run of complete, well-formed frames of `method` at the start of `bytes` (up to the
  /// buffers' capacity) into the three buffers, each payload read by `parse` in place; returns how
  /// many it read and the bytes they span. It stops at another method, an incomplete or oversized
  /// frame, or a payload `parse` refuses.
  @inline(__always)
  static func scanRun<Fields>(
    of method: EntitlementsMethod, in bytes: UnsafeRawBufferPointer, maximumPayloadLength: Int,
    requests: UnsafeMutableBufferPointer<Fields>, requestIds: UnsafeMutableBufferPointer<UInt32>,
    payloads: UnsafeMutableBufferPointer<Range<Int>>, parse: (UnsafeRawBufferPointer) -> Fields?
  ) -> (count: Int, consumed: Int) {
    var count = 0
    var offset = 0
    while count < requests.count, let header = RequestFrame.Header(in: bytes, at: offset),
      header.methodIndex == method.rawValue
    {
      let length = Int(header.messageLength)
      let start = offset + RequestFrame.headerLength
      guard length <= maximumPayloadLength, bytes.count - start >= length,
        let fields = parse(UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
      else { break }
      requests.initializeElement(at: count, to: fields)
      requestIds.initializeElement(at: count, to: header.requestId)
      payloads.initializeElement(at: count, to: start..<start + length)
      offset = start + length
      count += 1
    }
    return (count, offset)
  }

  /// Asks the handler for the answers to `requests` and writes a success frame for each as it
  /// comes; returns how many that was.
  private func answerTogether(
    _ requests: UnsafeBufferPointer<IsSubscriberFields>, requestIds: UnsafeBufferPointer<UInt32>,
    into output: inout ByteBuffer
  ) -> Int {
    let answered = handler.answerIsSubscriber(requests) { position, answer in
      output.writeIsSubscriberResponseFrame(
        methodIndex: EntitlementsMethod.isSubscriber.rawValue, requestId: requestIds[position], answer: answer)
    }
    precondition(answered <= requests.count, "a handler answers at most the requests it is given")
    return answered
  }
}
