import Foundation
import StoreInspection

/// The pure half of `tollgate inspect amazon-receipt|amazon-notification`: reads an input, checks
/// what can be checked, and describes it as a JSON document
/// `{"verdict": "valid"|"invalid", "error": CODE|null, "message": …, "payload": {…}, "summary": {…}}`.
///
/// `payload` is the decoded JSON object as received, in Amazon's field names. Input that is not a
/// JSON object of the kind the command reads throws `Unreadable` (the command exits 2); everything
/// else is a report, valid or not.
public enum AmazonInspection {
  public typealias Unreadable = InspectionUnreadable
  public typealias Problem = InspectionProblem
  public typealias Report = InspectionReport

  /// `bytes` as a JSON object, or `nil`.
  static func jsonObject(_ bytes: some Sequence<UInt8>) -> [String: Any]? { InspectionReport.jsonObject(bytes) }

  /// `value`, or JSON null.
  static func orNull(_ value: Any?) -> Any { value ?? NSNull() }
}
