import Foundation
import StoreInspection

/// The pure half of `tollgate inspect google-subscription|google-notification|google-purchase`:
/// reads an input, checks what can be checked, and describes it as a JSON document
/// `{"verdict": "valid"|"invalid", "error": CODE|null, "message": …, "payload": {…}, "summary": {…}}`
/// (the notification adds `envelope` and, with a token, `authentication`).
///
/// `payload` is the decoded JSON object as received, in Google's field names. Input that is none
/// of the forms a command reads throws `Unreadable` (the command exits 2); everything else is a
/// report, valid or not.
public enum GooglePlayInspection {
  public typealias Unreadable = InspectionUnreadable
  public typealias Problem = InspectionProblem
  public typealias Report = InspectionReport

  /// `bytes` as a JSON object, or `nil`.
  static func jsonObject(_ bytes: some Sequence<UInt8>) -> [String: Any]? { InspectionReport.jsonObject(bytes) }

  /// A decoding error in one line: where and what.
  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    let (path, detail): ([any CodingKey], String) =
      switch error {
      case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
        .dataCorrupted(let context):
        (context.codingPath, context.debugDescription)
      @unknown default: ([], "\(error)")
      }
    let location = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    return location.isEmpty ? detail : "\(location.drop { $0 == "." }): \(detail)"
  }

  /// `value`, or JSON null.
  static func orNull(_ value: Any?) -> Any { value ?? NSNull() }
}
