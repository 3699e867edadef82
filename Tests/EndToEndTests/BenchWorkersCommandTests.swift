import Testing
import TollgateTesting

/// `tollgate bench workers` (Benchmarks/workers runs it for real): what it refuses, as a process.
@Suite("tollgate bench workers refuses bad arguments")
struct BenchWorkersCommandTests {
  @Test(
    "bad counts, a bad address and an empty prefix exit 2 with the flag named",
    arguments: [
      (["--purchases", "0"], "--purchases must be at least 1"),
      (["--in-flight", "0"], "--in-flight and --poll-batch must be at least 1"),
      (["--poll-batch=-3"], "--in-flight and --poll-batch must be at least 1"),
      (["--timeout-ms", "0"], "--timeout-ms must be at least 1"),
      (["--user-prefix", ""], "--user-prefix must not be empty"),
      (["--sim", "nonsense"], "'nonsense' is invalid for '--sim"),
      (["--server", "127.0.0.1:99999"], "is invalid for '--server"),
    ])
  func refused(arguments: [String], message: String) async throws {
    let run = try await ChildProcess.runDetached(["bench", "workers"] + arguments)
    #expect(run.status == 2, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
  }

  @Test("a simulator that cannot be reached stops it before anything is submitted, exit 2")
  func unreachableSimulator() async throws {
    let run = try await ChildProcess.runDetached([
      "bench", "workers", "--sim", "127.0.0.1:1", "--server", "127.0.0.1:1", "--purchases", "3",
    ])
    #expect(run.status == 2, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.contains("buying at 127.0.0.1:1 failed"), "stderr: \(run.stderr)")
  }
}
