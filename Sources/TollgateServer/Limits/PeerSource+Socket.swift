import CTollgateNet
import TollgateCallers

extension PeerSource {
  /// The peer of the connected socket `fd` (one `getpeername`, plus `SO_PEERCRED` for a Unix socket).
  init(peerOf fd: Int32) {
    var value: UInt64 = 0
    switch tg_net_peer_source(fd, &value) {
    case 4: self = .ipv4(UInt32(truncatingIfNeeded: value))
    case 6: self = .ipv6Prefix(value)
    case 1: self = .localUser(uid: UInt32(truncatingIfNeeded: value))
    default: self = .unknown
    }
  }
}
