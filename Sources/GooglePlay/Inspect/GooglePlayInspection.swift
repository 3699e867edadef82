import Foundation

/// The pure half of `tollgate inspect google-subscription|google-notification|google-purchase`:
/// reads an input, checks what can be checked, and describes it as a JSON document
/// `{"verdict": "valid"|"invalid", "error": CODE|null, "message": …, "payload": {…}, "summary": {…}}`
/// (the notification adds `envelope` and, with a token, `authentication`).
///
/// `payload` is the decoded JSON object as received, in Google's field names. Input that is none
/// of the forms a command reads throws `Unreadable` (the command exits 2); everything else is a
/// report, valid or not.
public enum GooglePlayInspection {
  /// Input that is none of the forms the command reads.
  public struct Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
  }

  /// Why a report is invalid: a stable snake_case code and a sentence.
  public struct Problem: Sendable, Hashable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
      self.code = code
      self.message = message
    }
  }

  /// One inspection. Holds decoded JSON (`Any`), so it stays on the thread that made it.
  public struct Report {
    public var problem: Problem?
    /// The decoded JSON object as received.
    public var payload: Any?
    public var summary: [String: Any]?
    /// Further top-level members (`envelope`, `authentication`).
    public var extra: [String: Any]

    public init(problem: Problem? = nil, payload: Any? = nil, summary: [String: Any]? = nil, extra: [String: Any] = [:])
    {
      self.problem = problem
      self.payload = payload
      self.summary = summary
      self.extra = extra
    }

    public var isValid: Bool { problem == nil }

    /// The document, pretty-printed with sorted keys; absent members are `null`.
    public var json: String {
      var document = extra
      document["verdict"] = isValid ? "valid" : "invalid"
      document["error"] = problem?.code ?? NSNull()
      document["message"] = problem?.message ?? NSNull()
      document["payload"] = payload ?? NSNull()
      document["summary"] = summary ?? NSNull()
      return GooglePlayInspection.render(document)
    }
  }

  static func render(_ object: [String: Any]) -> String {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// `bytes` as a JSON object, or `nil`.
  static func jsonObject(_ bytes: some Sequence<UInt8>) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
  }

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
