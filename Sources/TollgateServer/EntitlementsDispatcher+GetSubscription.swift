import CTollgateNet
import NIOCore
import TollgateCallers
import TollgateContract
import TollgateWire

extension EntitlementsDispatcher {
  /// GetSubscription's fast path, for a caller already allowed to call it: reads the request's
  /// `user_id` in place and writes the handler's answer as a whole success frame. False, with
  /// nothing written, when the payload does not decode or the handler leaves the call to its
  /// message path (which then answers it, with its error).
  func answerGetSubscription(
    _ payload: ByteBuffer, methodIndex: UInt32, requestId: UInt32, into output: inout ByteBuffer
  ) -> Bool {
    payload.withUnsafeReadableBytes { bytes in
      guard let fields = GetSubscriptionFields(parsing: bytes) else { return false }
      return answerGetSubscription(userId: fields.userId, requestId: requestId, into: &output)
    }
  }

  private func answerGetSubscription(userId: UnsafeRawBufferPointer, requestId: UInt32, into output: inout ByteBuffer)
    -> Bool
  {
    handler.answerGetSubscription(userId: userId) { answer in
      output.writeGetSubscriptionResponseFrame(
        methodIndex: EntitlementsMethod.getSubscription.rawValue, requestId: requestId, answer: answer)
    }
  }

  /// GetSubscription's run, beside IsSubscriber's (`answerIsSubscriberCalls`), for a connection
  /// whose caller may call it (`ConnectionCaller.mayGetSubscription`): answers the GetSubscription
  /// frames at the start of `bytes`, as many as follow one another complete and well-formed (up
  /// to `batchLimit`), from the frames' bytes, without the decoder. Their users are warmed
  /// together first (`prepareIsSubscriber`: table entries, keys and first records), so that the
  /// lookups' cache misses overlap. A call the handler leaves (an error to answer) goes through
  /// `dispatch`, in its place. Every call is recorded in `calls`, timed from `startNs`. Returns
  /// the length of the frames it answered; 0 when the first is not such a frame (an incomplete
  /// or oversized one, a payload that does not decode, another method: that is `dispatch`'s).
  func answerGetSubscriptionCalls(
    in bytes: UnsafeRawBufferPointer, maximumPayloadLength: Int, into output: inout ByteBuffer,
    calls: CallCounters? = nil, startNs: UInt64 = 0
  ) -> Int {
    withUnsafeTemporaryAllocation(of: IsSubscriberFields.self, capacity: Self.batchLimit) { users in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.batchLimit) { requestIds in
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.batchLimit) { payloads in
          let method = EntitlementsMethod.getSubscription.rawValue
          // The users as IsSubscriber's fields with no entitlement: `prepareIsSubscriber` warms them.
          let (count, offset) = Self.scanRun(
            of: .getSubscription, in: bytes, maximumPayloadLength: maximumPayloadLength, requests: users,
            requestIds: requestIds, payloads: payloads
          ) { payload in
            GetSubscriptionFields(parsing: payload).map {
              IsSubscriberFields(userId: $0.userId, entitlement: UnsafeRawBufferPointer(start: nil, count: 0))
            }
          }
          guard count > 0 else { return 0 }
          if count > 1 { handler.prepareIsSubscriber(UnsafeBufferPointer(rebasing: users[0..<count])) }
          var answered = 0
          for position in 0..<count {
            if answerGetSubscription(userId: users[position].userId, requestId: requestIds[position], into: &output) {
              answered += 1
              continue
            }
            // Left to the message path (answered with its error). The run is for connections
            // that may call GetSubscription, so their caller is not changed here.
            var reader = ConnectionCaller.reader
            let outcome = dispatch(
              methodIndex: method, requestId: requestIds[position],
              payload: ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes[payloads[position]])), caller: &reader,
              into: &output)
            if let calls, case .answered(let ended) = outcome {
              calls.record(method: Int(method), outcome: ended, nanoseconds: tg_net_now_ns() &- startNs)
            }
          }
          if let calls, answered > 0 {
            calls.record(method: Int(method), outcome: .ok, count: answered, nanoseconds: tg_net_now_ns() &- startNs)
          }
          return offset
        }
      }
    }
  }
}

extension ConnectionCaller {
  /// May answer GetSubscription calls on the fast path's run: the scope table's answer for
  /// GetSubscription, folded to a constant as `mayRead` is.
  var mayGetSubscription: Bool { identity?.scopes.allow(CallerOperation.getSubscription.requiredScope) ?? false }
}
