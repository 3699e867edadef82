import Testing
import TollgateCallers

@testable import TollgateGRPC

@Suite("gRPC door: the source of a call, from grpc-swift's peer text")
struct GRPCPeerTests {
  @Test("IPv4, IPv6 by its /64, IPv4-mapped IPv6, and everything else unknown")
  func peers() {
    #expect(PeerSource(grpcPeer: "ipv4:127.0.0.1:50000") == PeerSource(ipAddress: "127.0.0.1"))
    #expect(PeerSource(grpcPeer: "ipv6:[2001:db8::1]:443") == PeerSource(ipAddress: "2001:db8::ffff"))
    #expect(PeerSource(grpcPeer: "ipv6:[::ffff:10.0.0.1]:1") == PeerSource(ipAddress: "10.0.0.1"))
    #expect(PeerSource(grpcPeer: "ipv4:10.0.0.1:1") != PeerSource(grpcPeer: "ipv4:10.0.0.2:1"))
    for other in ["unix:/tmp/s", "in-process:42", "<unknown>", "ipv4:", "ipv4:nonsense:1", "ipv6:[zz]:1"] {
      #expect(PeerSource(grpcPeer: other) == .unknown)
    }
  }
}
