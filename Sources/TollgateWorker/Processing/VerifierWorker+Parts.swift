import Hummingbird
import ServiceLifecycle
import TollgateHTTPListener

extension VerifierWorker {
  /// Runs the worker's parts (the two listeners, the inbox loop, webhooks, the sweep,
  /// housekeeping and the lease's heartbeat) as a service group of their own, and stops them all
  /// by graceful shutdown, never by cancellation: on SIGTERM, and also when a part fails (the
  /// lease taken over by another worker, a listener that cannot listen).
  ///
  /// Cancelling a Hummingbird listener drops the connections it accepted but did not hand to a
  /// handler yet, and each one's `NIOAsyncWriter` then traps in its deinit (SIGILL): a worker that
  /// resumed after a pause (SIGSTOP) past its lease, with connections queued in its backlog,
  /// crashed so when its lease error cancelled everything (issue 24). A graceful shutdown stops
  /// accepting and lets every accepted connection finish instead.
  ///
  /// Parts stop in the reverse of the order below: the notification listener first (no new
  /// work), then the inbox loop (items in flight finish), the background parts, the admin
  /// listener, and the lease last, released once nothing is left to write.
  func runParts() async throws {
    let (notifications, admin) = makeListeners()
    let parts: [WorkerPart?] = [
      // Without `worker.exclusive` there is no worker lease: the jobs' leases make them singletons.
      settings.exclusive
        ? WorkerPart("worker lease") { try await cancelWhenGracefulShutdown { try await self.lease.keepRenewed() } }
        : nil,
      WorkerPart("admin listener") {
        try await HTTPListener.run(
          admin, key: "worker.adminListen", address: self.adminListen, bound: self.adminBoundPort)
      },
      // Background parts may have nothing to do (no webhook endpoints): they may end on their own.
      WorkerPart("webhooks", mayEnd: true) {
        await cancelWhenGracefulShutdown { await self.webhooks.run(jobs: self.jobs) }
      },
      WorkerPart("store sweep", mayEnd: true) {
        await cancelWhenGracefulShutdown { await self.sweeper.run(jobs: self.jobs) }
      },
      WorkerPart("housekeeping", mayEnd: true) {
        await cancelWhenGracefulShutdown { await self.housekeeping.run(jobs: self.jobs) }
      },
      // Outages other workers record reach this one's evaluations within `pollMs`.
      WorkerPart("store health") {
        await cancelWhenGracefulShutdown {
          await self.storeHealth.keepFresh(everyMs: max(self.settings.pollMs, StoreHealth.refreshFloorMs))
        }
      },
      WorkerPart("inbox loop") { try await cancelWhenGracefulShutdown { try await self.loop() } },
      WorkerPart("notification listener") {
        try await HTTPListener.run(notifications, key: "worker.listen", address: self.listen, bound: self.boundPort)
      },
    ]
    var services = parts.compactMap { $0 }.map {
      ServiceGroupConfiguration.ServiceConfiguration(
        service: $0, successTerminationBehavior: $0.mayEnd ? .ignore : .gracefullyShutdownGroup,
        failureTerminationBehavior: .gracefullyShutdownGroup)
    }
    if let onListening {
      let announcement = WorkerPart("listening announcement", mayEnd: true) {
        let ports = (await self.boundPort.value(), await self.adminBoundPort.value())
        if ports.0 != 0 && ports.1 != 0 { onListening(ports.0, ports.1) }
      }
      services.append(.init(service: announcement, successTerminationBehavior: .ignore))
    }
    let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
    try await group.run()
  }
}

/// One long-running part of the worker, as a `Service` of the worker's own group.
struct WorkerPart: Service, CustomStringConvertible {
  let description: String
  /// Whether it may end before the worker stops (nothing to do); otherwise its end stops the
  /// worker (gracefully), like a failure.
  let mayEnd: Bool
  let body: @Sendable () async throws -> Void

  init(_ name: String, mayEnd: Bool = false, _ body: @escaping @Sendable () async throws -> Void) {
    self.description = name
    self.mayEnd = mayEnd
    self.body = body
  }

  func run() async throws { try await body() }
}
