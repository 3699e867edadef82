#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The machine's wall clock in milliseconds since the epoch (UTC).
public enum SystemClock {
  @Sendable
  public static func nowMs() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
  }
}
