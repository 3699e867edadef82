import Testing

@testable import TollgateConsole

@Suite struct ConsoleModuleTests {
  @Test func consoleRoutesLiveUnderConsole() {
    #expect(SupportConsole.pathPrefix == "/console")
  }
}
