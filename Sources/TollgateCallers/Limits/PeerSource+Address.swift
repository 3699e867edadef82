#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension PeerSource {
  /// The source of a peer a door knows only as text (gRPC's and HTTP's remote address, the port
  /// left out): an IPv4 address, an IPv6 address (counted by its /64), an IPv4-mapped IPv6
  /// address as its IPv4 one, all as the fast port counts a socket's peer. Nil for anything else.
  public init?(ipAddress text: String) {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      self = .ipv4(UInt32(bigEndian: v4.s_addr))
      return
    }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
    let bytes = withUnsafeBytes(of: v6) { Array($0) }
    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
      self = .ipv4(bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
      return
    }
    self = .ipv6Prefix(bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) })
  }
}
