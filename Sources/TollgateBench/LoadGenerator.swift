import CTollgateNet

#if canImport(Glibc)
  import Glibc
#endif

/// One thread's share of the load: its connections, one epoll loop, its request sequence.
/// Confined to the thread that runs it.
final class LoadGenerator {
  private let configuration: BenchConfiguration
  private let connections: [LoadConnection]
  private let epoll: Int32
  private var random: SplitMix64
  private let sampler: UserSampler
  private let userPrefix: [UInt8]
  private let entitlement: [UInt8]
  private var tally = ThreadTally()
  /// A timed run (sends until the window ends), or a request-count run (sends its budget).
  private var timed: Bool { configuration.requests == nil }

  /// Connects `count` connections (numbered from `firstIndex` among `totalConnections`), in TLS
  /// with `tls`, each authenticated with `authenticate` (a frame and its caller's name) when given.
  init(
    configuration: BenchConfiguration, firstIndex: Int, count: Int, totalConnections: Int, requestBudget: Int?,
    sampler: UserSampler, seed: UInt64, tls: BenchTLSContext? = nil,
    authenticate: (frame: [UInt8], caller: String)? = nil
  ) throws(BenchError) {
    self.configuration = configuration
    self.sampler = sampler
    random = SplitMix64(seed: seed)
    userPrefix = Array(configuration.userPrefix.utf8)
    entitlement = Array(configuration.entitlement.utf8)
    epoll = tg_net_epoll_create()
    guard epoll >= 0 else { throw .system("epoll_create1", errno) }
    var connections: [LoadConnection] = []
    do throws(BenchError) {
      for n in 0..<count {
        let servers = configuration.servers
        let server = servers[(firstIndex + n) % servers.count]
        let connection = try LoadConnection.open(configuration, server: server, token: UInt64(n), tls: tls)
        connections.append(connection)
        try connection.prepare(authenticate: authenticate, deadlineNs: tg_net_now_ns() + 10_000_000_000)
        if let budget = requestBudget {
          // Spread the budget: the first `budget % total` connections send one more.
          let index = firstIndex + n
          connection.budget = budget / totalConnections + (index < budget % totalConnections ? 1 : 0)
        }
        _ = tg_net_epoll_watch(epoll, connection.fd, tg_net_readable, UInt64(n), 0)
      }
    } catch {
      _ = Glibc.close(epoll)  // the connections close as they go
      throw error
    }
    self.connections = connections
  }

  deinit {
    for connection in connections { connection.close() }
    _ = Glibc.close(epoll)
  }

  /// Runs the load along `timeline` and returns what it counted.
  func run(_ timeline: Timeline, totalConnections: Int, firstIndex: Int) -> ThreadTally {
    if let rate = configuration.rate {
      let perConnection = rate / Double(totalConnections)
      for (n, connection) in connections.enumerated() {
        connection.pacer = OpenLoopPacer(
          ratePerSecond: perConnection, startNs: timeline.startNs, index: firstIndex + n, of: totalConnections)
      }
    }
    while tg_net_now_ns() < timeline.startNs {}
    var events = [tg_net_event](repeating: tg_net_event(), count: 256)

    let cpuAtStart = Self.threadCPUNs()
    for connection in connections { fillAndFlush(connection, nowNs: tg_net_now_ns(), timeline: timeline) }
    while true {
      let now = tg_net_now_ns()
      let sending = timed ? now < timeline.measureEndNs : connections.contains { $0.isOpen && ($0.budget ?? 0) > 0 }
      let outstanding = connections.reduce(0) { $0 + ($1.isOpen ? $1.inFlight.count : 0) }
      if !sending, outstanding == 0 { break }
      if now >= timeline.giveUpNs || !connections.contains(where: \.isOpen) { break }

      let ready: Int32
      if sending, configuration.rate != nil {
        var earliest = UInt64.max
        for connection in connections where connection.isOpen {
          fillAndFlush(connection, nowNs: now, timeline: timeline)
          if connection.inFlight.count < configuration.pipeline, let pacer = connection.pacer {
            earliest = min(earliest, pacer.nextDueNs)
          }
        }
        // Sleep exactly until the earliest due request (nanosecond timeout, never a spin): a late
        // wake-up cannot hide latency, which counts from each request's scheduled moment.
        let after = tg_net_now_ns()
        let timeoutNs = earliest <= after ? 0 : Int64(min(earliest - after, 10_000_000))
        ready = events.withUnsafeMutableBufferPointer { buffer in
          tg_net_epoll_wait_ns(epoll, buffer.baseAddress!, Int32(buffer.count), timeoutNs)
        }
      } else {
        ready = events.withUnsafeMutableBufferPointer { buffer in
          tg_net_epoll_wait(epoll, buffer.baseAddress!, Int32(buffer.count), 10)
        }
      }
      for i in 0..<Int(max(ready, 0)) {
        let event = events[i]
        let connection = connections[Int(event.token)]
        guard connection.isOpen else { continue }
        if event.events & (tg_net_readable | tg_net_hangup) != 0 {
          if case .closed = connection.receive({ answer in handle(answer, on: connection, timeline: timeline) }) {
            lose(connection)
            continue
          }
        }
        fillAndFlush(connection, nowNs: tg_net_now_ns(), timeline: timeline)
      }
    }
    for connection in connections where connection.isOpen { tally.unanswered += connection.inFlight.count }
    tally.cpuNs = Self.threadCPUNs() &- cpuAtStart
    return tally
  }

  private func handle(_ answer: LoadConnection.Answer, on connection: LoadConnection, timeline: Timeline) {
    let now = tg_net_now_ns()
    guard let startNs = connection.inFlight.remove(id: answer.requestId) else {
      tally.unmatched += 1
      return
    }
    tally.answered += 1
    let inWindow = now >= timeline.measureStartNs && (configuration.requests != nil || now <= timeline.measureEndNs)
    switch answer.status {
    case 0: break
    case 2: tally.tooManyPending += 1
    default: tally.serviceFailed += 1
    }
    guard inWindow else { return }
    tally.measured += 1
    tally.latency.record(ns: now &- startNs)
    if answer.status == 0, answer.methodIndex == RequestEncoder.isSubscriberMethod {
      tally.measuredIsSubscriber += 1
      // `active` is field 1; protobuf writers emit fields in number order, so it leads when true.
      if answer.payload.count >= 2, answer.payload[0] == 0x08, answer.payload[1] == 0x01 { tally.active += 1 }
    }
  }

  /// Tops the connection up to its pipeline depth (closed loop) or with the requests now due
  /// (open loop), then writes.
  private func fillAndFlush(_ connection: LoadConnection, nowNs: UInt64, timeline: Timeline) {
    guard connection.isOpen else { return }
    let depth = configuration.pipeline
    while connection.inFlight.count < depth {
      if timed {
        guard nowNs < timeline.measureEndNs else { break }
      } else {
        guard let budget = connection.budget, budget > 0 else { break }
      }
      let startNs: UInt64
      if var pacer = connection.pacer {
        guard let due = pacer.takeDue(nowNs: nowNs) else { break }
        connection.pacer = pacer
        startNs = due
      } else {
        startNs = nowNs
      }
      if !timed { connection.budget! -= 1 }
      enqueueRequest(on: connection, startNs: startNs)
    }
    switch connection.flush() {
    case .ok: connection.setWatchingWritable(false, epoll: epoll)
    case .wouldBlock: connection.setWatchingWritable(true, epoll: epoll)
    case .closed: lose(connection)
    }
  }

  private func enqueueRequest(on connection: LoadConnection, startNs: UInt64) {
    let user = sampler.next(using: &random).number
    let getSubscription =
      configuration.getSubscriptionShare > 0 && random.nextUnit() < configuration.getSubscriptionShare
    let prefix = userPrefix
    let entitlement = self.entitlement
    connection.enqueue(startNs: startNs) { buffer, id in
      if getSubscription {
        RequestEncoder.appendGetSubscription(to: &buffer, requestId: id, userPrefix: prefix, userNumber: user)
      } else {
        RequestEncoder.appendIsSubscriber(
          to: &buffer, requestId: id, userPrefix: prefix, userNumber: user, entitlement: entitlement)
      }
    }
    tally.sent += 1
  }

  /// CPU time this thread has used.
  private static func threadCPUNs() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  }

  private func lose(_ connection: LoadConnection) {
    guard connection.isOpen else { return }
    tally.connectionsLost += 1
    tally.unanswered += connection.inFlight.count
    connection.close()
  }
}
