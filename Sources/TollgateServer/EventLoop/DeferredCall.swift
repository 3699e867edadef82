import NIOCore
import SwiftProtobuf
import TollgateWire

/// A call a server loop hands off because it may wait (SubmitPurchase): the server's `run()`
/// runs it as a child task and it answers through its loop's mailbox.
struct DeferredCall: Sendable {
  let work: @Sendable () async throws -> DeferredAnswer
  let mailbox: LoopMailbox
  let token: ConnectionToken
  let methodIndex: UInt32
  let requestId: UInt32
  /// When its loop read it (monotonic ns): the call's latency runs from there to its answer.
  let startNs: UInt64

  func run() async {
    let result: Result<DeferredAnswer, any Error>
    do { result = .success(try await work()) } catch { result = .failure(error) }
    mailbox.post(.answer(token, methodIndex: methodIndex, requestId: requestId, startNs: startNs, result))
  }
}

/// A deferred call's answer: the encoded response, and how the call ended (for the metrics).
struct DeferredAnswer: Sendable {
  var payload: ByteBuffer
  var outcome: CallOutcome
}

extension CallResponse where Self: SwiftProtobuf.Message {
  /// The response encoded, with its outcome.
  func deferredAnswer() throws -> DeferredAnswer {
    DeferredAnswer(payload: try encoded(), outcome: CallOutcome(self))
  }
}

/// The queue from the loops' threads to the server's task group.
struct DeferredCalls: Sendable {
  let stream: AsyncStream<DeferredCall>
  private let continuation: AsyncStream<DeferredCall>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream(of: DeferredCall.self)
  }

  /// False once the server has stopped running calls.
  func submit(_ call: DeferredCall) -> Bool {
    if case .enqueued = continuation.yield(call) { return true }
    return false
  }

  func finish() { continuation.finish() }
}
