import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import StoreSimulator
import TollgateCore

/// A process's clock (serve, worker, the admin commands): the machine's, or, for demos and tests
/// only, a store simulator's virtual clock (`GET {url}/sim/clock` → `{"nowMs", "followedNowMs"}`),
/// followed by polling; every follower reads the same now, whenever it started.
struct ProcessClock: Sendable {
  let nowMs: @Sendable () -> Int64
  let services: [ServiceGroupConfiguration.ServiceConfiguration]

  static func make(followURL: String?, logger: Logger) async throws -> ProcessClock {
    guard let followURL else { return ProcessClock(nowMs: SystemClock.nowMs, services: []) }
    let follower = SimulatorClockFollower(url: followURL, logger: logger)
    try await follower.firstReading(within: .seconds(30))
    logger.warning(
      "following a simulator's virtual clock; never do this in production", metadata: ["clock.url": "\(followURL)"])
    return ProcessClock(nowMs: { follower.nowMs() }, services: [.init(service: follower)])
  }
}

/// Polls a simulator's clock into a `FollowedClock`.
final class SimulatorClockFollower: Service, Sendable {
  private let clock = FollowedClock(virtualMs: 0)
  private let url: String
  private let logger: Logger

  init(url: String, logger: Logger) {
    self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
    self.logger = logger
  }

  func nowMs() -> Int64 { clock.nowMs() }

  func refresh() async throws {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url + "/sim/clock"), timeout: .seconds(2))
    let body = try await response.body.collect(upTo: 4096)
    // `followedNowMs`: the now every follower reads, whenever it started (an older simulator
    // sends `nowMs` alone).
    struct Clock: Decodable {
      var nowMs: Int64
      var followedNowMs: Int64?
    }
    let reading = try JSONDecoder().decode(Clock.self, from: Data(body.readableBytesView))
    clock.observe(virtualMs: reading.nowMs, followedNowMs: reading.followedNowMs)
  }

  /// The first reading, before the process starts: a simulator that is slow to answer (busy, on
  /// a loaded machine: a test's simulator shares its process with dozens of others) is asked
  /// again until `limit` has passed; one that refuses the connection or answers nonsense fails
  /// at once.
  func firstReading(within limit: Duration) async throws {
    let deadline = ContinuousClock.now + limit
    while true {
      do {
        return try await refresh()
      } catch let error as HTTPClientError where error == .deadlineExceeded && ContinuousClock.now < deadline {
        logger.notice("the simulator's clock did not answer in time; asking again", metadata: ["clock.url": "\(url)"])
      }
    }
  }

  func run() async throws {
    await cancelWhenGracefulShutdown {
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(100))
        do { try await self.refresh() } catch {
          self.logger.debug("simulator clock unreachable", metadata: ["error": "\(error)"])
        }
      }
    }
  }
}
