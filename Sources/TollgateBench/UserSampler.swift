/// Picks the user of each request: a seeded user (uniform or Zipf by rank) or, with probability
/// `1 - hitRatio`, one that does not exist.
struct UserSampler: Sendable {
  enum Pick: Hashable {
    /// `userPrefix<n>` with n in 0..<users: a seeded user.
    case member(Int)
    /// `userPrefix<n>` with n ≥ users: nobody.
    case stranger(Int)

    var number: Int {
      switch self {
      case .member(let n), .stranger(let n): n
      }
    }
  }

  let users: Int
  let hitRatio: Double
  /// Zipf only: cumulative probability of ranks 0…i (rank 0, `userPrefix0`, is the most popular).
  private let cumulative: [Double]?

  init(users: Int, distribution: BenchConfiguration.Distribution, zipfExponent: Double, hitRatio: Double) {
    self.users = users
    self.hitRatio = hitRatio
    switch distribution {
    case .uniform:
      cumulative = nil
    case .zipf:
      var weights = [Double](repeating: 0, count: users)
      var sum = 0.0
      for rank in 0..<users {
        sum += 1 / _pow(Double(rank + 1), zipfExponent)
        weights[rank] = sum
      }
      for rank in 0..<users { weights[rank] /= sum }
      weights[users - 1] = 1
      cumulative = weights
    }
  }

  func next(using random: inout SplitMix64) -> Pick {
    if hitRatio < 1, random.nextUnit() >= hitRatio {
      return .stranger(users + Int(random.next() % UInt64(users)))
    }
    guard let cumulative else { return .member(Int(random.next() % UInt64(users))) }
    let u = random.nextUnit()
    // The first rank whose cumulative probability exceeds u.
    var low = 0
    var high = cumulative.count - 1
    while low < high {
      let mid = (low + high) / 2
      if cumulative[mid] > u { high = mid } else { low = mid + 1 }
    }
    return .member(low)
  }
}

#if canImport(Glibc)
  import Glibc
  @inline(__always) private func _pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
#else
  import Darwin
  @inline(__always) private func _pow(_ x: Double, _ y: Double) -> Double { Darwin.pow(x, y) }
#endif
