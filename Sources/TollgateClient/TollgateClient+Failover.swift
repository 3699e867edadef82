import NIOCore
import TollgateContract
import TollgateWire

/// Spreading calls over the replicas and failing over from a dead connection.
///
/// Each call goes to the next replica in turn that is not backed off (round robin). When its
/// connection cannot be made, or dies before the answer (refused, reset, closed, timed out), the
/// replica is backed off and, while the call's timeout lasts, the call is tried on another
/// replica, but only when that is safe: always when the request never left (the connection could
/// not be made), and for reads (IsSubscriber, GetSubscription, GetSubmission, Health, and the
/// admin reads LookUp, GetTimeline and Explain: `EntitlementsMethod.isRead`) also when it did. A
/// write the server may have received (SubmitPurchase, Grant, Revoke, Reverify, EraseUser) is
/// never sent again: its error reaches the caller, who can ask GetSubmission or submit again
/// (the server recognises the same purchase), or read before repeating an admin write.
/// A read a replica refuses with UNAVAILABLE (it has not loaded its index) is tried on another.
/// The first try waits as long as a one-server client would; a retry waits for its answer no
/// longer than what is left of the call's timeout (its connection attempt has `connectTimeout`:
/// keep that below the call timeout to fail over from a host that does not answer at all).
extension TollgateClient {
  /// Whether a call of this method may be sent again after its request may have arrived.
  static func isSafeToRepeat(methodIndex: UInt32) -> Bool {
    EntitlementsMethod(rawValue: methodIndex)?.isRead ?? false
  }

  /// Whether a failure says the replica's connection is dead (as opposed to an answer, a refusal
  /// of this call, or a problem every replica would have, such as wrong credentials).
  static func isDeadConnection(_ error: any Error) -> Bool {
    guard let error = error as? TollgateClientError else { return false }
    return error.code == .connectionFailed || error.code == .connectionClosed || error.code == .deadlineExceeded
      || error.code == .invalidResponse
  }

  /// The replica for the next attempt: the next in turn that is not backed off and not `tried`;
  /// else the untried one whose back-off ends first (a replica may be back before its back-off
  /// ends); nil when every replica was tried.
  func pickReplica(excluding tried: [Int], now: ContinuousClock.Instant) -> Int? {
    let count = replicas.count
    if count == 1 { return tried.isEmpty ? 0 : nil }
    let start = nextReplica.add(1, ordering: .relaxed).oldValue
    var soonest: (index: Int, until: ContinuousClock.Instant)?
    for offset in 0..<count {
      let index = (start &+ offset) % count
      if tried.contains(index) { continue }
      guard let until = replicas[index].backedOffUntil(now: now) else { return index }
      if soonest == nil || until < soonest!.until { soonest = (index, until) }
    }
    return soonest?.index
  }

  /// Sends one frame, on one replica after another as long as that is safe and the call's
  /// timeout lasts, and returns the answer made by `decode`. `refused` tells whether an answer is
  /// a replica's refusal to be tried elsewhere (UNAVAILABLE to a read).
  func callWithFailover<Answer>(
    methodIndex: UInt32, payload: ByteBuffer, timeout: Duration?, decode: (ResponseFrame) throws -> Answer,
    refused: (Answer) -> Bool = { _ in false }
  ) async throws -> Answer {
    try Task.checkCancellation()
    let clock = ContinuousClock()
    let budget = timeout ?? config.callTimeout
    let deadline = clock.now + budget
    let repeatable = Self.isSafeToRepeat(methodIndex: methodIndex)
    var tried: [Int] = []
    while true {
      let now = clock.now
      guard let index = pickReplica(excluding: tried, now: now) else {
        preconditionFailure("a call ran out of replicas without an error to report")
      }
      tried.append(index)
      let replica = replicas[index]
      let last = tried.count == replicas.count
      let frame: ResponseFrame
      do {
        // The first attempt waits as long as a one-server client would; a retry what is left.
        let wait = tried.count == 1 ? budget : deadline - now
        frame = try await replica.callRaw(methodIndex: methodIndex, payload: payload, timeout: wait)
      } catch {
        guard Self.isDeadConnection(error.error) else { throw error.error }
        replica.recordFailure(now: clock.now)
        guard !last, !error.requestSent || repeatable, clock.now < deadline else { throw error.error }
        continue
      }
      let answer = try decode(frame)
      if !last, repeatable, clock.now < deadline, refused(answer) {
        replica.recordFailure(now: clock.now)
        continue
      }
      replica.recordSuccess()
      return answer
    }
  }
}
