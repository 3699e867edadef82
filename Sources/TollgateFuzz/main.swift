// The libFuzzer driver for the harnesses in FuzzTargets: `scripts/fuzz` builds it with the
// `Fuzzing` trait, AddressSanitizer and coverage instrumentation, and libFuzzer linked in; it then
// runs the harness `TOLLGATE_FUZZ_HARNESS` names, taking libFuzzer's own arguments.
// `TOLLGATE_FUZZ_HARNESS=list` prints the harnesses' names. Built without the trait (a plain
// `swift build`) it has nothing to run.
#if Fuzzing
  import FuzzTargets
  import Glibc

  /// libFuzzer's entry point for a program with its own `main` (libclang_rt.fuzzer_no_main).
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  enum Selected {
    static let harness: FuzzHarness = {
      let name = getenv("TOLLGATE_FUZZ_HARNESS").map { String(cString: $0) } ?? ""
      guard let harness = FuzzHarness(rawValue: name) else {
        let names = FuzzHarness.allCases.map(\.rawValue).joined(separator: ", ")
        print("TollgateFuzz: set TOLLGATE_FUZZ_HARNESS to one of: \(names)")
        exit(2)
      }
      return harness
    }()
  }

  if getenv("TOLLGATE_FUZZ_HARNESS").map({ String(cString: $0) }) == "list" {
    for harness in FuzzHarness.allCases { print(harness.rawValue) }
    exit(0)
  }
  _ = Selected.harness
  var argc = CommandLine.argc
  var argv = CommandLine.unsafeArgv
  exit(
    runFuzzerDriver(&argc, &argv) { data, size in
      Selected.harness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
      return 0
    })
#else
  print("TollgateFuzz: built without the Fuzzing trait; scripts/fuzz builds and runs the fuzzers")
#endif
