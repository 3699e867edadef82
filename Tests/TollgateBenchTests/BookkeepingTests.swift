import Testing

@testable import TollgateBench

@Suite("In-flight bookkeeping, pacing and user picks")
struct BookkeepingTests {
  @Test("each request is answered once, by id, in any order")
  func inFlight() {
    var table = InFlightTable(capacity: 16)
    #expect(table.capacity == 16)
    for id in UInt32(1)...16 {
      let inserted = table.insert(id: id, startNs: UInt64(id) * 10)
      #expect(inserted)
    }
    #expect(table.count == 16)
    let overfull = table.insert(id: 17, startNs: 0)
    #expect(!overfull, "17 would take 1's slot while 1 is outstanding")
    for id in (UInt32(1)...16).reversed() {
      let start = table.remove(id: id)
      #expect(start == UInt64(id) * 10)
    }
    let twice = table.remove(id: 5)
    #expect(twice == nil, "answered twice")
    let neverSent = table.remove(id: 99)
    #expect(neverSent == nil, "never sent")
    #expect(table.count == 0)
    let reused = table.insert(id: 17, startNs: 1)
    #expect(reused)
    let old = table.remove(id: 1)
    #expect(old == nil, "an old id in a reused slot is not the new request")
    let current = table.remove(id: 17)
    #expect(current == 1)
  }

  @Test("ids wrap around UInt32 without losing requests")
  func wrap() {
    var table = InFlightTable(capacity: 4)
    var id = UInt32.max - 1
    for _ in 0..<3 {
      let inserted = table.insert(id: id, startNs: 1)
      #expect(inserted)
      id &+= 1
    }
    for id in [UInt32.max - 1, UInt32.max, 0] {
      let start = table.remove(id: id)
      #expect(start == 1)
    }
  }

  @Test("open loop: due on schedule, staggered, and late requests keep their scheduled moment")
  func pacer() {
    var pacer = OpenLoopPacer(ratePerSecond: 1_000, startNs: 1_000_000_000, index: 1, of: 4)
    #expect(pacer.nextDueNs == 1_000_250_000, "a quarter interval after the start")
    let early = pacer.takeDue(nowNs: 1_000_249_999)
    #expect(early == nil)
    let first = pacer.takeDue(nowNs: 1_000_250_000)
    #expect(first == 1_000_250_000)
    let again = pacer.takeDue(nowNs: 1_000_250_000)
    #expect(again == nil)
    // 5 ms late: the next five come out at once, each with its own scheduled time.
    var late: [UInt64] = []
    while let due = pacer.takeDue(nowNs: 1_006_250_000) { late.append(due) }
    #expect(late == (1...6).map { 1_000_250_000 + UInt64($0) * 1_000_000 })
    #expect(pacer.scheduled == 7)
  }

  @Test("uniform picks stay in range; misses ask about nobody")
  func uniform() {
    let sampler = UserSampler(users: 1_000, distribution: .uniform, zipfExponent: 1, hitRatio: 0.8)
    var random = SplitMix64(seed: 42)
    var members = 0
    var seen = Set<Int>()
    for _ in 0..<20_000 {
      switch sampler.next(using: &random) {
      case .member(let n):
        #expect((0..<1_000).contains(n))
        members += 1
        seen.insert(n)
      case .stranger(let n):
        #expect((1_000..<2_000).contains(n))
      }
    }
    #expect((15_400...16_600).contains(members), "\(members) of 20000 at hit ratio 0.8")
    #expect(seen.count > 990)
  }

  @Test("zipf: rank 0 is asked about most, in the theoretical proportion")
  func zipf() {
    let sampler = UserSampler(users: 100, distribution: .zipf, zipfExponent: 1, hitRatio: 1)
    var random = SplitMix64(seed: 7)
    var counts = [Int](repeating: 0, count: 100)
    let draws = 100_000
    for _ in 0..<draws { counts[sampler.next(using: &random).number] += 1 }
    let harmonic = (1...100).reduce(0.0) { $0 + 1 / Double($1) }
    let expectedFirst = Double(draws) / harmonic
    #expect(abs(Double(counts[0]) - expectedFirst) < expectedFirst * 0.03, "\(counts[0]) vs \(expectedFirst)")
    #expect(abs(Double(counts[1]) - expectedFirst / 2) < expectedFirst * 0.03)
    #expect(counts[0] > counts[9] * 8)
  }

  @Test("the same seed gives the same sequence")
  func seeded() {
    var a = SplitMix64(seed: 3)
    var b = SplitMix64(seed: 3)
    #expect((0..<10).map { _ in a.next() } == (0..<10).map { _ in b.next() })
  }

  @Test("configuration problems are all reported")
  func problems() {
    var configuration = BenchConfiguration()
    configuration.connections = 0
    configuration.pipeline = 0
    configuration.hitRatio = 2
    configuration.rate = -1
    let problems = configuration.problems()
    #expect(problems.count >= 4, "\(problems)")
    #expect(BenchConfiguration().problems().isEmpty)
  }
}
