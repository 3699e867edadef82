import TollgateCallers

extension PeerSource {
  /// The source of a gRPC call, from grpc-swift's text for its remote peer: `ipv4:1.2.3.4:5`,
  /// `ipv6:[::1]:5` (counted by its /64, an IPv4-mapped address as its IPv4 one), as the fast
  /// port counts a socket's peer. Anything else (`unix:…`, `in-process:…`, `<unknown>`) is
  /// `.unknown`: those sources are counted together.
  public init(grpcPeer peer: String) {
    let host: Substring
    if peer.hasPrefix("ipv4:"), let colon = peer.lastIndex(of: ":"), colon > peer.index(peer.startIndex, offsetBy: 4) {
      host = peer[peer.index(peer.startIndex, offsetBy: 5)..<colon]
    } else if peer.hasPrefix("ipv6:["), let close = peer.lastIndex(of: "]") {
      host = peer[peer.index(peer.startIndex, offsetBy: 6)..<close]
    } else {
      self = .unknown
      return
    }
    self = PeerSource(ipAddress: String(host)) ?? .unknown
  }
}
