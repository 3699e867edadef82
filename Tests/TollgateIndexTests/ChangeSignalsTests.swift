import Synchronization
import Testing
import TollgateStorage
import TollgateTesting

@Suite("Change signals")
struct ChangeSignalsTests {
  @Test("signals given before the consumer asks are coalesced into one; a waiting consumer gets the next at once")
  func coalesced() async throws {
    let (signals, continuation) = ChangeSignals.makeSignals()
    continuation.changed()
    continuation.changed()
    continuation.changed()
    let taken = Mutex(0)
    let consumer = Task {
      for await _ in signals { taken.withLock { $0 += 1 } }
    }
    defer { consumer.cancel() }
    #expect(await eventually(timeout: .seconds(20)) { taken.withLock { $0 } == 1 } != nil)
    try await Task.sleep(for: .milliseconds(50))
    #expect(taken.withLock { $0 } == 1, "three signals before the consumer asked are one")
    continuation.changed()
    #expect(await eventually(timeout: .seconds(20)) { taken.withLock { $0 } == 2 } != nil)
  }

  @Test("quiet looks reach the hook only while the consumer waits, never while a signal is pending or being read")
  func quietOnlyWhileWaiting() async throws {
    let quiets = Mutex(0)
    let reading = Mutex(false)
    let (signals, continuation) = ChangeSignals.makeSignals { quiets.withLock { $0 += 1 } }
    continuation.quiet()
    #expect(quiets.withLock { $0 } == 0, "nobody waits yet")
    continuation.changed()
    continuation.quiet()
    #expect(quiets.withLock { $0 } == 0, "a signal is pending")

    let release = Mutex(false)
    let consumer = Task {
      for await _ in signals {
        reading.withLock { $0 = true }
        // A read in progress (until released): looks meanwhile are not quiet for it.
        while !release.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
        reading.withLock { $0 = false }
      }
    }
    defer { consumer.cancel() }
    #expect(await eventually(timeout: .seconds(20)) { reading.withLock { $0 } } != nil)
    continuation.quiet()
    #expect(quiets.withLock { $0 } == 0, "the consumer is reading")
    release.withLock { $0 = true }
    let reached = await eventually(timeout: .seconds(20)) {
      continuation.quiet()
      return quiets.withLock { $0 } > 0
    }
    #expect(reached != nil, "a quiet look while the consumer waits reaches the hook")
  }

  @Test("cancelling the consumer, or dropping the signals, finishes them for the producer")
  func finishes() async throws {
    let (signals, continuation) = ChangeSignals.makeSignals()
    let consumer = Task {
      for await _ in signals {}
      return true
    }
    try await Task.sleep(for: .milliseconds(20))
    #expect(!continuation.isFinished)
    consumer.cancel()
    #expect(await consumer.value)
    #expect(continuation.isFinished)

    let dropped = { () -> ChangeSignals.Continuation in
      let (signals, continuation) = ChangeSignals.makeSignals()
      _ = signals
      return continuation
    }()
    #expect(dropped.isFinished, "nobody can take its signals any more")
  }

  @Test("onFinish runs once when the consumer stops or the signals are dropped, and at once when they had ended")
  func onFinish() async throws {
    let (signals, continuation) = ChangeSignals.makeSignals()
    let ended = Mutex(0)
    continuation.onFinish { ended.withLock { $0 += 1 } }
    let consumer = Task { for await _ in signals {} }
    try await Task.sleep(for: .milliseconds(20))
    #expect(ended.withLock { $0 } == 0)
    consumer.cancel()
    await consumer.value
    #expect(ended.withLock { $0 } == 1)
    continuation.finish()
    #expect(ended.withLock { $0 } == 1, "once only")
    continuation.onFinish { ended.withLock { $0 += 10 } }
    #expect(ended.withLock { $0 } == 11, "a hook given after the end runs at once")

    let dropped = Mutex(false)
    do {
      let (signals, continuation) = ChangeSignals.makeSignals()
      continuation.onFinish { dropped.withLock { $0 = true } }
      _ = signals
    }
    #expect(dropped.withLock { $0 }, "dropping the signals runs it")
  }

  @Test("a storage without a probe signals at once, then every interval, and is never quiet")
  func everyInterval() async throws {
    var iterator = ChangeSignals.every(.milliseconds(20)).makeAsyncIterator()
    let clock = ContinuousClock()
    let start = clock.now
    #expect(await iterator.next() != nil)
    #expect(clock.now - start < .milliseconds(20))
    #expect(await iterator.next() != nil)
    #expect(clock.now - start >= .milliseconds(20))
  }
}
