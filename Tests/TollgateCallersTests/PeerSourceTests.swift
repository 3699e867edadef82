import Testing
import TollgateCallers

@Suite("PeerSource from a door's textual address")
struct PeerSourceAddressTests {
  @Test("IPv4, IPv6 by its /64, IPv4-mapped IPv6 as IPv4; anything else is no source")
  func parses() {
    #expect(PeerSource(ipAddress: "192.0.2.1") == .ipv4(0xC000_0201))
    #expect(PeerSource(ipAddress: "2001:db8:0:1::5") == .ipv6Prefix(0x2001_0db8_0000_0001))
    #expect(PeerSource(ipAddress: "2001:db8:0:1:ffff::9") == PeerSource(ipAddress: "2001:db8:0:1::5"))
    #expect(PeerSource(ipAddress: "::ffff:192.0.2.1") == .ipv4(0xC000_0201))
    #expect(PeerSource(ipAddress: "192.0.2.1:7705") == nil)
    #expect(PeerSource(ipAddress: "example.com") == nil)
    #expect(PeerSource(ipAddress: "") == nil)
  }
}
