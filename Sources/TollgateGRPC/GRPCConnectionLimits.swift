import NIOCore
import NIOSSL
import Synchronization
import TollgateHTTPListener

/// What the gRPC door allows a connection, added to each accepted one's pipeline through the
/// transport's `onAcceptTCPConnection`:
/// - a cap on open connections, shared by all of them: each takes a slot (`ConnectionSlotHandler`,
///   first in its pipeline) and gives it back when it closes. When every slot is taken, a new
///   connection closes the oldest open one that no keyed call has proved yet (`proven(peer:)`,
///   told by `CallerInterceptor`) and takes its slot, as the fast port's reserved connections do:
///   strangers holding every slot lock no caller out. Only when every open connection is proven
///   is the new one closed, before anything of it is read;
/// - a deadline for the TLS handshake and the HTTP/2 connection preface (`PrefaceDeadlineHandler`):
///   a connection that has not sent them within `handshakeTimeout` of opening is closed, so that
///   silent sockets cannot hold the slots until the idle timeout.
final class GRPCConnectionLimits: Sendable {
  let maximumConnections: Int
  let handshakeTimeout: TimeAmount
  private let slots: ConnectionSlots
  private let refused = Atomic<Int>(0)
  private let evicted = Atomic<Int>(0)
  private let cutForPreface = Atomic<Int>(0)
  private let unproven = Mutex(Unproven())

  /// The open connections no keyed call has proved yet, by the order they came in, and by their
  /// peer as grpc-swift writes it (`ipv4:1.2.3.4:5`).
  private struct Unproven {
    var connections: [Int: (peer: String?, channel: any Channel)] = [:]
    var byPeer: [String: Int] = [:]
    var next = 0
  }

  init(maximumConnections: Int, handshakeTimeout: TimeAmount) {
    self.maximumConnections = maximumConnections
    self.handshakeTimeout = handshakeTimeout
    self.slots = ConnectionSlots(capacity: maximumConnections)
  }

  /// Connections holding a slot now.
  var openConnections: Int { slots.count }
  /// Connections closed because every slot was taken by a proven one, since the door started.
  var refusedConnections: Int { refused.load(ordering: .relaxed) }
  /// Unproven connections closed to make room for a new one, since the door started.
  var evictedConnections: Int { evicted.load(ordering: .relaxed) }

  /// Connections closed for not sending the preface in time, since the door started.
  var prefaceTimeouts: Int { cutForPreface.load(ordering: .relaxed) }

  /// The `onAcceptTCPConnection` callback: puts the slot handler first in `channel`'s pipeline and
  /// the preface deadline right after the TLS handler (so that it counts decrypted bytes: the
  /// handshake and the preface must both be done in time), or after the slot handler in plaintext.
  func install(on channel: any Channel) -> EventLoopFuture<Void> {
    channel.eventLoop.submit {
      let pipeline = channel.pipeline.syncOperations
      let slot = ConnectionSlotHandler(limits: self)
      try pipeline.addHandler(slot, position: .first)
      let deadline = PrefaceDeadlineHandler(limits: self)
      if let tls = try? pipeline.handler(type: NIOSSLServerHandler.self) {
        try pipeline.addHandler(deadline, position: .after(tls))
      } else {
        try pipeline.addHandler(deadline, position: .after(slot))
      }
    }
  }

  func countPrefaceTimeout() {
    cutForPreface.add(1, ordering: .relaxed)
  }

  /// A slot for the connection numbered `id`: a free one, or the slot of the oldest unproven
  /// connection, which is closed; false (nothing taken) when every open connection is proven.
  func takeSlot(for id: Int) -> Bool {
    if slots.acquire() { return true }
    let oldest: (any Channel)? = unproven.withLock { unproven in
      guard let key = unproven.connections.keys.filter({ $0 != id }).min(),
        let victim = unproven.connections.removeValue(forKey: key)
      else { return nil }
      if let peer = victim.peer { unproven.byPeer[peer] = nil }
      return victim.channel
    }
    guard let oldest else {
      refused.add(1, ordering: .relaxed)
      return false
    }
    // Its slot comes back when it has closed; until then the door is one over.
    evicted.add(1, ordering: .relaxed)
    oldest.close(promise: nil)
    slots.acquireOverCapacity()
    return true
  }

  /// Registers a connection just accepted as unproven; its number.
  func register(_ channel: any Channel) -> Int {
    let peer = Self.grpcPeer(channel.remoteAddress)
    return unproven.withLock { unproven in
      unproven.next += 1
      unproven.connections[unproven.next] = (peer, channel)
      if let peer { unproven.byPeer[peer] = unproven.next }
      return unproven.next
    }
  }

  /// The connection numbered `id` closed.
  func forget(_ id: Int) {
    unproven.withLock { unproven in
      if let peer = unproven.connections.removeValue(forKey: id)?.peer { unproven.byPeer[peer] = nil }
    }
  }

  /// A keyed call on the connection grpc-swift calls `peer` was let in: that connection is proven
  /// and never closed to make room.
  func proven(peer: String) {
    unproven.withLock { unproven in
      guard let id = unproven.byPeer.removeValue(forKey: peer) else { return }
      unproven.connections[id] = nil
    }
  }

  /// A connection's remote address as grpc-swift's `ServerContext.remotePeer` writes it.
  static func grpcPeer(_ address: SocketAddress?) -> String? {
    switch address {
    case .v4(let ipv4)?: address?.port.map { "ipv4:\(ipv4.host):\($0)" }
    case .v6(let ipv6)?: address?.port.map { "ipv6:[\(ipv6.host)]:\($0)" }
    default: nil
    }
  }

  func giveSlot() {
    slots.release()
  }
}

/// Holds one of `GRPCConnectionLimits`' slots for its connection, or closes the connection when
/// none is free. Passes everything through.
final class ConnectionSlotHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let limits: GRPCConnectionLimits
  private var holdsSlot = false
  private var id: Int?

  init(limits: GRPCConnectionLimits) {
    self.limits = limits
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let id = limits.register(context.channel)
    self.id = id
    holdsSlot = limits.takeSlot(for: id)
    if !holdsSlot {
      limits.forget(id)
      if context.channel.isActive { context.close(promise: nil) }
    }
  }

  /// An accepted connection's pipeline is set up before it is registered: one without a slot is
  /// closed once it is active.
  func channelActive(context: ChannelHandlerContext) {
    guard holdsSlot else {
      context.close(promise: nil)
      return
    }
    context.fireChannelActive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    if let id { limits.forget(id) }
    id = nil
    if holdsSlot { limits.giveSlot() }
    holdsSlot = false
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard holdsSlot else { return }
    context.fireChannelRead(data)
  }
}

/// Closes its connection unless the client's HTTP/2 connection preface (24 bytes) and the header
/// of its first frame (9, the SETTINGS the preface must be followed by) arrive within
/// `handshakeTimeout` of the connection becoming active; then it steps aside. Counts bytes only:
/// the HTTP/2 handler after it checks what they are.
final class PrefaceDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  /// The preface and a frame header.
  static let prefaceBytes = 24 + 9

  private let limits: GRPCConnectionLimits
  private var received = 0
  private var deadline: Scheduled<Void>?

  init(limits: GRPCConnectionLimits) {
    self.limits = limits
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { startDeadline(context: context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    startDeadline(context: context)
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    received += unwrapInboundIn(data).readableBytes
    context.fireChannelRead(data)
    if received >= Self.prefaceBytes {
      deadline?.cancel()
      deadline = nil
      context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    deadline?.cancel()
    deadline = nil
  }

  private func startDeadline(context: ChannelHandlerContext) {
    guard deadline == nil, received < Self.prefaceBytes else { return }
    deadline = context.eventLoop.assumeIsolated().scheduleTask(in: limits.handshakeTimeout) {
      self.deadline = nil
      guard context.channel.isActive else { return }
      self.limits.countPrefaceTimeout()
      context.close(promise: nil)
    }
  }
}
