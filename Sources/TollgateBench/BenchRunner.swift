import CTollgateNet
import Dispatch
import Foundation
import Synchronization

/// Runs a benchmark: connects every thread's connections, starts them together, merges what
/// they counted.
public enum BenchRunner {
  /// Blocks until the run is over (duration + warm-up + drain, or every request answered). With
  /// `configuration.caller`, `callerKey` is its key: every connection authenticates with it
  /// before the load starts (it is kept apart from the configuration, which results print).
  public static func run(_ configuration: BenchConfiguration, callerKey: String? = nil) throws(BenchError)
    -> BenchResult
  {
    var problems = configuration.problems()
    if configuration.caller != nil, callerKey?.isEmpty ?? true { problems.append("a caller needs its key") }
    if configuration.caller == nil, callerKey != nil { problems.append("a key needs its caller") }
    guard problems.isEmpty else { throw .invalidConfiguration(problems) }
    let tls = try configuration.tlsCAFile.map { (caFile) throws(BenchError) in
      try BenchTLSContext(caFile: caFile, serverName: configuration.tlsServerName ?? configuration.host)
    }
    let authenticate = try configuration.caller.map { (caller) throws(BenchError) in
      (frame: try LoadConnection.authenticateFrame(caller: caller, key: callerKey ?? ""), caller: caller)
    }
    let sampler = UserSampler(
      users: configuration.users, distribution: configuration.distribution, zipfExponent: configuration.zipfExponent,
      hitRatio: configuration.hitRatio)

    let threads = configuration.threads
    let total = configuration.connections
    let ready = DispatchGroup()
    let finished = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    let timeline = Mutex<Timeline?>(nil)
    let outcomes = Mutex<[Result<ThreadTally, BenchError>]>([])

    var first = 0
    for t in 0..<threads {
      let count = total / threads + (t < total % threads ? 1 : 0)
      let firstIndex = first
      first += count
      ready.enter()
      finished.enter()
      let thread = Thread {
        defer { finished.leave() }
        let generator: LoadGenerator
        do throws(BenchError) {
          generator = try LoadGenerator(
            configuration: configuration, firstIndex: firstIndex, count: count, totalConnections: total,
            requestBudget: configuration.requests, sampler: sampler,
            seed: configuration.seed &* 0x9E37_79B9 &+ UInt64(t), tls: tls, authenticate: authenticate)
        } catch {
          outcomes.withLock { $0.append(.failure(error)) }
          ready.leave()
          return
        }
        ready.leave()
        go.wait()
        guard let plan = timeline.withLock({ $0 }) else { return }
        let tally = generator.run(plan, totalConnections: total, firstIndex: firstIndex)
        outcomes.withLock { $0.append(.success(tally)) }
      }
      thread.name = "tollgate-bench-\(t)"
      thread.start()
    }

    ready.wait()
    let failed = outcomes.withLock { $0.contains { if case .failure = $0 { true } else { false } } }
    let start = tg_net_now_ns() + 5_000_000
    let warmupNs = configuration.requests == nil ? UInt64(configuration.warmupSeconds * 1e9) : 0
    let measureNs = configuration.requests == nil ? UInt64(configuration.durationSeconds * 1e9) : UInt64.max / 4
    let plan = Timeline(
      startNs: start, measureStartNs: start + warmupNs, measureEndNs: start + warmupNs + measureNs,
      giveUpNs: configuration.requests == nil ? start + warmupNs + measureNs + 2_000_000_000 : UInt64.max)
    if !failed { timeline.withLock { $0 = plan } }
    for _ in 0..<threads { go.signal() }
    finished.wait()
    let ended = tg_net_now_ns()

    var tally = ThreadTally()
    for outcome in outcomes.withLock({ $0 }) {
      switch outcome {
      case .failure(let error): throw error
      case .success(let part): tally.merge(part)
      }
    }
    let measuredSeconds =
      configuration.requests == nil
      ? Double(plan.measureEndNs - plan.measureStartNs) / 1e9
      : Double(ended - plan.startNs) / 1e9
    return BenchResult(
      configuration: configuration, loop: configuration.rate == nil ? "closed" : "open",
      measuredSeconds: measuredSeconds,
      requests: tally.measured, throughputPerSecond: Double(tally.measured) / measuredSeconds,
      latency: tally.latency.summary,
      activeShare: tally.measuredIsSubscriber == 0 ? 0 : Double(tally.active) / Double(tally.measuredIsSubscriber),
      sent: tally.sent,
      errors: .init(
        serviceFailed: tally.serviceFailed, tooManyPending: tally.tooManyPending, unmatched: tally.unmatched,
        connectionsLost: tally.connectionsLost, unanswered: tally.unanswered),
      generatorCPUSeconds: Double(tally.cpuNs) / 1e9,
      generatorCPUShare: Double(tally.cpuNs) / Double(max(ended - plan.startNs, 1)))
  }
}
