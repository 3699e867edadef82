import ArgumentParser
import Foundation
import TollgateHTTPAPI

/// `tollgate http-routes --json` (hidden): the HTTP door's route table (`HTTPRoutes.all`), for
/// the OpenAPI test (clients/stock/tests/test_openapi.py) to compare with docs/api/openapi.yaml.
struct HTTPRoutesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "http-routes", abstract: "Print the HTTP/JSON API's routes.", shouldDisplay: false)

  @Flag(help: "As JSON: method, path, operationId and scope of each route.")
  var json = false

  func run() {
    if json {
      FileHandle.standardOutput.write(Data(HTTPRoutes.json.utf8))
      return
    }
    for route in HTTPRoutes.all {
      print("\(route.method.rawValue) \(route.path) \(route.scope ?? "(no key)")")
    }
  }
}
