import Testing
import TollgateHTTPListener

@Suite("Listen addresses")
struct ListenAddressTests {
  @Test(
    "valid addresses",
    arguments: [
      ("127.0.0.1:7703", "127.0.0.1", 7703), ("0.0.0.0:0", "0.0.0.0", 0), ("localhost:65535", "localhost", 65_535),
      ("[::1]:7704", "::1", 7704), ("worker-1.internal:80", "worker-1.internal", 80),
    ])
  func valid(text: String, host: String, port: Int) throws {
    let address = try ListenAddress.parse(text, key: "worker.listen")
    #expect(address == ListenAddress(host: host, port: port))
    #expect(ListenAddress(address.description) == address)
  }

  @Test(
    "invalid addresses are errors naming the key",
    arguments: [
      "127.0.0.1:99999", "127.0.0.1:65536", "localhost", ":7703", "::1:7703", "127.0.0.1:", "127.0.0.1:+80",
      "127.0.0.1:-1", "127.0.0.1:7703x", "bad host:80", "[nope]:80", "127.0.0.1:0000099999", "*:80",
    ])
  func invalid(text: String) {
    #expect(ListenAddress(text) == nil)
    let problem = ListenAddress.problem(text, key: "worker.adminListen")
    #expect(problem?.hasPrefix("worker.adminListen: \"\(text)\" is not an address to listen on") == true)
    #expect(throws: ListenAddressError(problems: [ListenAddress.problem(text, key: "worker.listen") ?? ""])) {
      try ListenAddress.parse(text, key: "worker.listen")
    }
  }
}
