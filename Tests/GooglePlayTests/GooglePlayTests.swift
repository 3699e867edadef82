import GooglePlay
import Testing

@Suite("Google Play")
struct GooglePlayTests {
  @Test("the Android Publisher scope is Google's")
  func scope() {
    #expect(GooglePlay.androidPublisherScope == "https://www.googleapis.com/auth/androidpublisher")
  }
}
