import AmazonAppstore

extension Inspect {
  /// Runs an Amazon Appstore inspection: prints its document and exits 0 (valid) or 1 (invalid);
  /// input in none of the forms the command reads exits 2.
  static func runAmazon(_ inspect: () throws -> AmazonInspection.Report) throws {
    try InspectInput.exitWithVerdict({
      do {
        let report = try inspect()
        return (report.json, report.isValid)
      } catch let error as AmazonInspection.Unreadable {
        throw InspectInput.Unreadable(message: error.message)
      }
    })
  }
}
