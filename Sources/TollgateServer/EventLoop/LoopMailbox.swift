import CTollgateNet
import Glibc
import NIOCore
import Synchronization

/// What other threads hand a server loop: the answers of deferred calls and the request to shut
/// down. Posting wakes the loop through its eventfd.
final class LoopMailbox: Sendable {
  enum Message: Sendable {
    /// A deferred call finished: `answer` is the payload and outcome, or the error that fails the call.
    case answer(
      ConnectionToken, methodIndex: UInt32, requestId: UInt32, startNs: UInt64, Result<DeferredAnswer, any Error>)
    /// A scrape asks what the loop counted: `reply` is called on the loop's thread with it (or
    /// with nothing, when the loop has ended).
    case snapshot(@Sendable (DoorSnapshot?) -> Void)
    /// Stop accepting and reading; close each connection once its deferred calls are answered and
    /// its answers written, and every connection at `deadlineNs` (monotonic).
    case shutdown(deadlineNs: UInt64)
  }

  let wakeFd: Int32
  /// Nil once the loop has ended: nothing posted after that is delivered.
  private let messages = Mutex<[Message]?>([])

  init() throws(RPCServerError) {
    wakeFd = tg_net_eventfd()
    guard wakeFd >= 0 else { throw .eventLoopSetupFailed(errno: errno) }
  }

  deinit { Glibc.close(wakeFd) }

  /// False (nothing delivered) once the loop has ended.
  @discardableResult
  func post(_ message: Message) -> Bool {
    let posted = messages.withLock { messages -> Bool in
      guard messages != nil else { return false }
      messages!.append(message)
      return true
    }
    if posted { tg_net_eventfd_signal(wakeFd) }
    return posted
  }

  /// The loop has ended: what was posted and not taken (its scrapes are answered with nothing),
  /// and nothing is delivered from now on.
  func close() -> [Message] {
    messages.withLock { messages in
      defer { messages = nil }
      return messages ?? []
    }
  }

  /// Everything posted so far. The eventfd is reset first, so a message posted meanwhile wakes the
  /// loop again rather than being missed.
  func takeAll() -> [Message] {
    tg_net_eventfd_drain(wakeFd)
    return messages.withLock { messages in
      guard let taken = messages else { return [] }
      messages!.removeAll(keepingCapacity: true)
      return taken
    }
  }
}

/// A connection as other threads name it: its descriptor and the generation the loop gave it, so
/// an answer for a closed connection never reaches a new one that reuses the descriptor.
struct ConnectionToken: Sendable, Hashable {
  var fd: Int32
  var generation: UInt32

  var epollToken: UInt64 { UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd)) }

  init(fd: Int32, generation: UInt32) {
    self.fd = fd
    self.generation = generation
  }

  init(epollToken: UInt64) {
    fd = Int32(bitPattern: UInt32(truncatingIfNeeded: epollToken))
    generation = UInt32(truncatingIfNeeded: epollToken >> 32)
  }
}
