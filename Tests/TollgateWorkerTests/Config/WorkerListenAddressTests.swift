import Logging
import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

@Suite("Worker listen addresses")
struct WorkerListenAddressTests {
  @Test("an address that is not HOST:PORT stops the worker with a configuration error worded as the config check's")
  func configurationError() {
    var settings = WorkerSettings()
    settings.adminListen = "nowhere"
    #expect {
      try VerifierWorker(
        configuration: WorkerConfiguration(catalog: ProductCatalog(), worker: settings), storage: FakeWorkerStorage(),
        gateways: [], environment: [:], nowMs: { 1 }, logger: Logger(label: "test"))
    } throws: { error in
      (error as? WorkerConfigurationError)?.problems == [
        #"worker.adminListen: "nowhere" is not an address to listen on (HOST:PORT, port 0 to 65535): no port"#
      ]
    }
  }
}
