import Foundation
import StoreSimulator
import Synchronization
import Testing

/// `FollowedClock`: followers of one simulator read the same now, whenever they started.
@Suite("Followed clock")
struct FollowedClockTests {
  /// A real clock the test moves by hand.
  final class RealClock: Sendable {
    let ms = Mutex<Int64>(1_000_000)
    func advance(_ delta: Int64) { ms.withLock { $0 += delta } }
    var now: @Sendable () -> Int64 { { self.ms.withLock { $0 } } }
  }

  @Test("two followers, one started 5 s after a jump, read the same now from the simulator's readings")
  func startedApartAgree() {
    let real = RealClock()
    let virtualNow: Int64 = 2_000_000_000_000
    // The simulator moved its clock at real 1_000_000; it reports what its followers read.
    func reading() -> (Int64, Int64) { (virtualNow, virtualNow + real.now() - 1_000_000) }
    let early = FollowedClock(virtualMs: 0, realMs: real.now)
    early.observe(virtualMs: reading().0, followedNowMs: reading().1)
    real.advance(5_000)
    let late = FollowedClock(virtualMs: 0, realMs: real.now)
    late.observe(virtualMs: reading().0, followedNowMs: reading().1)
    #expect(early.nowMs() == virtualNow + 5_000)
    #expect(late.nowMs() == early.nowMs())
    real.advance(250)
    early.observe(virtualMs: reading().0, followedNowMs: reading().1)
    #expect(late.nowMs() == early.nowMs())
    #expect(late.nowMs() == virtualNow + 5_250)
  }

  @Test("a late answer never pulls the clock back; a jump re-anchors it")
  func lateReadingsAndJumps() {
    let real = RealClock()
    let clock = FollowedClock(virtualMs: 0, realMs: real.now)
    clock.observe(virtualMs: 10_000, followedNowMs: 10_500)
    real.advance(100)
    // An answer that took 80 ms to arrive says 10_520, 80 ms old: the clock stays at 10_600.
    clock.observe(virtualMs: 10_000, followedNowMs: 10_520)
    #expect(clock.nowMs() == 10_600)
    // A reading ahead by more than the tolerance: this clock was behind.
    clock.observe(virtualMs: 10_000, followedNowMs: 10_700)
    #expect(clock.nowMs() == 10_700)
    // The simulator's clock jumped: read the new now, even when it is behind.
    clock.observe(virtualMs: 9_000_000, followedNowMs: 9_000_000)
    #expect(clock.nowMs() == 9_000_000)
  }

  @Test("in-process followers of a simulator read its followedNowMs, over HTTP too")
  func overHTTP() async throws {
    try await GoogleHarness.run { harness in
      let sim = harness.sim
      try await sim.advance(byMs: 86_400_000)
      try await Task.sleep(for: .milliseconds(300))
      let control = StoreSimulatorControlClient(baseURL: sim.baseURL, httpClient: .shared)
      let answer = try await control.clock()
      let clock = try JSONDecoder().decode([String: Int64].self, from: Data(answer.body.utf8))
      let followed = try #require(clock["followedNowMs"])
      #expect(clock["nowMs"] == sim.clockNowMs)
      #expect(followed >= sim.clockNowMs + 300)
      let inProcess = FollowedClock.following(sim)
      // The reading over HTTP is older than the in-process one by the request's time (loose: the
      // full suite shares two cores).
      #expect(abs(inProcess() - followed) < 2_000)
    }
  }
}
