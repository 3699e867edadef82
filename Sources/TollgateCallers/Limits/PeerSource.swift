/// Where a connection comes from, as the authentication limiter counts it: an IPv4 address, an
/// IPv6 address's /64 (one host usually holds the whole /64, so counting addresses would let it
/// pick a fresh one per guess), or the local user on the other end of a Unix domain socket (each
/// user id is a source of its own, so one local account cannot lock out the others).
public enum PeerSource: Hashable, Sendable, CustomStringConvertible {
  case ipv4(UInt32)
  case ipv6Prefix(UInt64)
  case localUser(uid: UInt32)
  /// The address could not be read (the peer already gone): counted together.
  case unknown

  /// For logs: the address, the /64, or the user id.
  public var description: String {
    switch self {
    case .ipv4(let address):
      (0..<4).map { "\((address >> (24 - 8 * UInt32($0))) & 0xff)" }.joined(separator: ".")
    case .ipv6Prefix(let prefix):
      (0..<4).map { String((prefix >> (48 - 16 * UInt64($0))) & 0xffff, radix: 16) }.joined(separator: ":") + "::/64"
    case .localUser(let uid): "unix socket, uid \(uid)"
    case .unknown: "unknown"
    }
  }
}
