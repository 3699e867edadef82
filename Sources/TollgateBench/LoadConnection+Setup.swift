import CTollgateCrypto
import CTollgateNet
import TollgateContract
import TollgateWire

#if canImport(Glibc)
  import Glibc
#endif

/// What a load connection does before the timed load: connect (TCP or a Unix domain socket),
/// complete its TLS handshake, and authenticate its caller. None of it is measured.
extension LoadConnection {
  /// A connection to `server`, one of the configured servers, in TLS when `tls` is given
  /// (handshake not yet run) for the configured server name, else the server's host.
  static func open(
    _ configuration: BenchConfiguration, server: BenchConfiguration.Server, token: UInt64, tls: BenchTLSContext?
  ) throws(BenchError) -> LoadConnection {
    let fd = try connectSocket(server)
    var session: OpaquePointer?
    if let tls {
      let serverName = configuration.tlsServerName ?? server.host
      session = tls.connection(fd: fd, serverName: serverName)
      guard session != nil else {
        _ = Glibc.close(fd)
        throw .tls("cannot start TLS for the server name \"\(serverName)\"")
      }
    }
    return LoadConnection(fd: fd, token: token, pipeline: configuration.pipeline, tls: session)
  }

  /// A connected, non-blocking socket to `unixSocket`, or else to `host:port`.
  private static func connectSocket(_ configuration: BenchConfiguration.Server) throws(BenchError) -> Int32 {
    guard let path = configuration.unixSocket else {
      let fd = tg_net_connect(configuration.host, Int32(configuration.port))
      guard fd >= 0 else { throw .connect(host: configuration.host, port: configuration.port, errno: errno) }
      return fd
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .connectUnix(path: path, errno: errno) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    // Fits with its terminating zero (BenchConfiguration.problems checks the length).
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
      let code = errno
      _ = Glibc.close(fd)
      throw .connectUnix(path: path, errno: code)
    }
    return fd
  }

  /// Completes the TLS handshake; then, given an Authenticate frame (`authenticateFrame`), sends
  /// it and checks the answer: the caller is known and may read. Gives up at `deadlineNs`.
  func prepare(authenticate: (frame: [UInt8], caller: String)?, deadlineNs: UInt64) throws(BenchError) {
    if let tls {
      var message = [CChar](repeating: 0, count: 512)
      while true {
        let step = tg_tls_handshake(tls, &message, message.count)
        if step == 1 { break }
        guard step == TG_TLS_WANT_READ || step == TG_TLS_WANT_WRITE else { throw .tls(BenchTLSContext.text(message)) }
        guard wait(for: step == TG_TLS_WANT_READ ? POLLIN : POLLOUT, until: deadlineNs) else {
          throw .tls("the handshake did not finish in time")
        }
      }
    }
    guard let (frame, caller) = authenticate else { return }
    enqueueUntracked(frame)
    var answer: (status: UInt32, methodIndex: UInt32, payload: [UInt8])?
    while answer == nil {
      let flushed = flush()
      let received = receive { answer = ($0.status, $0.methodIndex, Array($0.payload)) }
      if case .closed = flushed { throw .authentication("the connection closed before Authenticate was answered") }
      if case .closed = received { throw .authentication("the connection closed before Authenticate was answered") }
      guard answer == nil else { break }
      let events = hasUnsentBytes ? POLLIN | POLLOUT : POLLIN
      guard wait(for: events, until: deadlineNs) else { throw .authentication("no answer to Authenticate in time") }
    }
    try Self.check(answer!, caller: caller)
  }

  private static func check(_ answer: (status: UInt32, methodIndex: UInt32, payload: [UInt8]), caller: String)
    throws(BenchError)
  {
    guard answer.status == 0, answer.methodIndex == EntitlementsMethod.authenticate.rawValue else {
      throw .authentication("the server did not answer Authenticate (status \(answer.status)): does it know callers?")
    }
    let response: Tollgate_V1_AuthenticateResponse
    do {
      response = try Tollgate_V1_AuthenticateResponse(serializedBytes: answer.payload)
    } catch {
      throw .authentication("the answer to Authenticate does not decode")
    }
    if response.hasError { throw .authentication("caller \(caller) refused: \(response.error.message)") }
    guard response.scopes.contains("read") || response.scopes.contains("admin") else {
      throw .authentication(
        "caller \(caller) may not call IsSubscriber (scopes: \(response.scopes.joined(separator: ", ")))")
    }
  }

  /// An Authenticate request frame for `caller` with its key.
  static func authenticateFrame(caller: String, key: String) throws(BenchError) -> [UInt8] {
    var request = Tollgate_V1_AuthenticateRequest()
    request.caller = caller
    request.key = key
    let payload: [UInt8]
    do {
      payload = try request.serializedBytes()
    } catch {
      throw .authentication("cannot encode the Authenticate request")
    }
    var frame: [UInt8] = []
    RequestFrame.Header(
      methodIndex: EntitlementsMethod.authenticate.rawValue, messageLength: UInt32(payload.count), requestId: 0
    ).append(to: &frame)
    frame += payload
    return frame
  }

  /// Waits until the socket is ready for `events` (or failed); false when `deadlineNs` passed.
  private func wait(for events: Int32, until deadlineNs: UInt64) -> Bool {
    let now = tg_net_now_ns()
    guard now < deadlineNs else { return false }
    var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
    _ = poll(&poller, 1, Int32(min((deadlineNs - now) / 1_000_000 + 1, 60_000)))
    return true
  }
}
