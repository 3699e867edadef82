import Foundation
import Testing
import TollgateWorker

/// A config file's problems all at once (issue 29): a value of the wrong type in one part does not
/// hide one in another, nor the unknown keys of what decoded; unknown enum-like values name their key.
@Suite("Worker configuration: every problem at once")
struct WorkerConfigurationDecodeTests {
  static func decodeProblems(_ json: String) -> [String] {
    do {
      _ = try WorkerConfiguration.decode(Data(json.utf8))
      return []
    } catch {
      return error.problems
    }
  }

  @Test("wrong types in the catalog, worker and webhooks are reported together, with the unknown keys")
  func decodingProblemsTogether() {
    let problems = Self.decodeProblems(
      """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "products": 5,
        "worker": {"pollMs": "fast"},
        "webhooks": [{"url": "https://h.example", "secretEnv": "H", "sekret": 1}],
        "gracePolicy": {"renewalLeewayMs": 1},
        "worker2": {}
      }
      """)
    #expect(problems.contains { $0.hasPrefix("products:") }, "\(problems)")
    #expect(problems.contains { $0.hasPrefix("worker.pollMs:") }, "\(problems)")
    #expect(problems.contains("webhooks[0].sekret is not a known key"), "\(problems)")
    #expect(problems.contains("worker2 is not a known key"), "\(problems)")
  }

  @Test("not JSON is one problem, said once")
  func notJSON() {
    let problems = Self.decodeProblems("{")
    #expect(problems.count == 1 && problems.first?.hasPrefix("the file is not JSON") == true, "\(problems)")
  }

  @Test("unknown subscription states in accessLevels are named together, with the known ones")
  func unknownStates() {
    let problems = Self.decodeProblems(
      #"{"accessLevels": {"actve": "full", "on_hold": "read_only", "graced": "none"}}"#)
    #expect(problems.count == 1, "\(problems)")
    #expect(problems.first?.hasPrefix("accessLevels: unknown subscription states 'actve', 'graced' (known: ") == true)
  }

  @Test("a store name storeRequestsPerMinute does not know is an error naming its key once")
  func unknownStoreName() throws {
    let configuration = try WorkerConfiguration.decode(
      Data(#"{"worker": {"storeRequestsPerMinute": {"appstore": 5, "googlePlay": 0}}}"#.utf8))
    let problems = configuration.problems(environment: [:], stores: []).filter { $0.hasPrefix("worker.") }
    #expect(problems.contains("worker.storeRequestsPerMinute.appstore: not a store (appStore, googlePlay, amazon)"))
    #expect(problems.contains("worker.storeRequestsPerMinute.googlePlay: must be at least 1"))
  }
}
