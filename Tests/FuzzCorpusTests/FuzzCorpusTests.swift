import Foundation
import FuzzTargets
import Testing

/// Replays the committed fuzz corpus (`Fuzz/corpus/<harness>/`: hand-made seeds and the minimized
/// inputs of crashes found and fixed) through the same harness functions `scripts/fuzz` runs under
/// libFuzzer, here without sanitizers: a fixed crash stays fixed.
@Suite struct FuzzCorpusTests {
  /// `<repo>/Fuzz/corpus`, from this file's path (Tests/FuzzCorpusTests/FuzzCorpusTests.swift).
  static let corpus: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

  @Test(arguments: FuzzHarness.allCases)
  func replaysCorpus(_ harness: FuzzHarness) throws {
    let directory = Self.corpus.appendingPathComponent(harness.rawValue)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(!files.isEmpty, "Fuzz/corpus/\(harness.rawValue) holds no input")
    for file in files {
      let data = try Data(contentsOf: directory.appendingPathComponent(file))
      harness.run(Array(data))
    }
  }

  @Test func everyCorpusFolderIsAHarness() throws {
    let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
    let names = Set(FuzzHarness.allCases.map(\.rawValue))
    #expect(folders.filter { !names.contains($0) }.isEmpty)
  }
}
