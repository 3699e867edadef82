import AmazonAppstore
import Testing

@Suite("Amazon Appstore")
struct AmazonAppstoreTests {
  @Test("RVS answers at Amazon's documented bases")
  func bases() {
    #expect(RVSConfig().productionBaseURL == "https://appstore-sdk.amazon.com")
    #expect(RVSConfig().sandboxBaseURL == "https://appstore-sdk.amazon.com/sandbox")
  }
}
