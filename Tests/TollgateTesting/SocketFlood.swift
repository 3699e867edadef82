import Glibc

/// Many plain TCP connections for tests that attack a server's connection slots: each a
/// non-blocking socket with no event loop behind it, which sends what it is given and reads
/// nothing, unless a test asks whether the server closed it.
public final class SocketFlood {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// The sockets, in the order they connected.
  public private(set) var sockets: [Int32] = []
  /// Bytes a socket's send buffer did not take yet, sent before anything new (frames stay whole).
  private var unsent: [Int32: ArraySlice<UInt8>] = [:]

  /// Linux's POLLRDHUP (the peer closed its end), which Glibc's module does not export.
  private static let peerClosed: Int16 = 0x2000

  public init() {}

  deinit { closeAll() }

  /// Connects `count` more sockets to `host:port`, each sending `bytes` (as much as its send buffer
  /// takes) once connected; with `receiveBuffer`, a small receive buffer is set first, so that the
  /// server's answers back up sooner. Waits up to `timeout` for the connections to complete.
  public func connect(
    count: Int, port: Int, host: String = "127.0.0.1", sending bytes: [UInt8] = [], receiveBuffer: Int32? = nil,
    timeout: Duration = .seconds(10)
  ) throws(Failure) {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: "bad host \(host)") }
    var started: [Int32] = []
    for _ in 0..<count {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
      if var size = receiveBuffer {
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      }
      let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard result == 0 || errno == EINPROGRESS else {
        let failure = errno
        Glibc.close(fd)
        throw Failure(description: "connect failed: errno \(failure)")
      }
      started.append(fd)
      sockets.append(fd)
    }
    // Each socket sends once it is connected (refused ones fail quietly: the server may close
    // them at once, which is what some tests are about).
    let deadline = ContinuousClock.now + timeout
    var waiting = Set(started)
    while !waiting.isEmpty, ContinuousClock.now < deadline {
      var polls = waiting.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
      _ = poll(&polls, nfds_t(polls.count), 100)
      for entry in polls where entry.revents != 0 {
        waiting.remove(entry.fd)
        if entry.revents & Int16(POLLOUT) != 0, !bytes.isEmpty { _ = queue(bytes[...], on: entry.fd) }
      }
    }
    guard waiting.isEmpty else {
      throw Failure(description: "\(waiting.count) of \(count) connections did not complete")
    }
  }

  /// Sends `bytes` on every socket whose earlier bytes were all taken (what a socket does not take
  /// now is sent first next time); how many sockets took everything.
  @discardableResult
  public func sendToAll(_ bytes: [UInt8]) -> Int {
    sockets.filter { fd in
      if let left = unsent.removeValue(forKey: fd), !queue(left, on: fd) { return false }
      return queue(bytes[...], on: fd)
    }.count
  }

  /// How many sockets the server has closed (a reset, or its end of the stream), unread answers
  /// notwithstanding.
  public func closedByPeer() -> Int {
    var polls = sockets.map { pollfd(fd: $0, events: Self.peerClosed, revents: 0) }
    _ = poll(&polls, nfds_t(polls.count), 0)
    return polls.filter { $0.revents & (Self.peerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0 }.count
  }

  /// Waits until the server has closed at least `count` sockets; false if `timeout` passed first.
  public func waitUntilClosedByPeer(atLeast count: Int, timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while closedByPeer() < count {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return true
  }

  public func closeAll() {
    for fd in sockets { Glibc.close(fd) }
    sockets.removeAll()
    unsent.removeAll()
  }

  /// Sends as much of `bytes` as the socket takes, keeping the rest for later; true when it took all.
  private func queue(_ bytes: ArraySlice<UInt8>, on fd: Int32) -> Bool {
    let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    guard sent < bytes.count else { return true }
    // A failed socket (closed by the server) keeps nothing.
    if sent >= 0 || errno == EAGAIN || errno == EWOULDBLOCK { unsent[fd] = bytes.dropFirst(max(sent, 0)) }
    return false
  }
}
