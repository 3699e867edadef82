import GooglePlay

extension Inspect {
  /// Runs a Google Play inspection: prints its document and exits 0 (valid) or 1 (invalid);
  /// input in none of the forms the command reads exits 2.
  static func runGoogle(_ inspect: () throws -> GooglePlayInspection.Report) throws {
    try InspectInput.exitWithVerdict({
      do {
        let report = try inspect()
        return (report.json, report.isValid)
      } catch let error as GooglePlayInspection.Unreadable {
        throw InspectInput.Unreadable(message: error.message)
      }
    })
  }
}
