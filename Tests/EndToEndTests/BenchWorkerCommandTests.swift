import Testing
import TollgateTesting

/// `tollgate bench worker` (Benchmarks/worker runs it for real): what it refuses, as a process.
@Suite("tollgate bench worker refuses bad arguments")
struct BenchWorkerCommandTests {
  @Test(
    "bad counts, stores, fractions and pids exit 2 with the flag named",
    arguments: [
      (["--notifications=-1"], "--notifications and --submissions must not be negative"),
      (["--in-flight", "0"], "--in-flight at least 1"),
      (["--hang-fraction", "1.5"], "--hang-fraction must be greater than 0 and at most 1"),
      (["--stores", "app_store,nowhere"], "--stores takes app_store, google_play and amazon"),
      (["--pid", "worker"], "--pid takes NAME=PID"),
      (["--timeout-ms", "0"], "--timeout-ms must be at least 1"),
    ])
  func refused(arguments: [String], message: String) async throws {
    let run = try await ChildProcess.runDetached(["bench", "worker", "--worker-admin", "127.0.0.1:1"] + arguments)
    #expect(run.status == 2, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
  }

  @Test("a simulator that cannot be reached stops it before anything is bought, exit 2")
  func unreachableSimulator() async throws {
    let run = try await ChildProcess.runDetached([
      "bench", "worker", "--sim", "127.0.0.1:1", "--server", "127.0.0.1:1", "--worker-admin", "127.0.0.1:1",
    ])
    #expect(run.status == 2, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.contains("tollgate bench worker:"), "stderr: \(run.stderr)")
  }
}
