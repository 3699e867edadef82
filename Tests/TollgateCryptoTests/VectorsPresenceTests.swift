import Testing
import TollgateTesting

@Suite("Public vectors")
struct VectorsPresenceTests {
  @Test("under CI=true the public vectors are present (the suites that read them must not be skipped)")
  func presentUnderCI() {
    #expect(
      !Vectors.isRequired || Vectors.isAvailable,
      "CI=true but \(Vectors.directory) is missing: the verification suites cannot run")
  }
}
