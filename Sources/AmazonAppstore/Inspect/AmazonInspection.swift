import Foundation

/// The pure half of `tollgate inspect amazon-receipt|amazon-notification`: reads an input, checks
/// what can be checked, and describes it as a JSON document
/// `{"verdict": "valid"|"invalid", "error": CODE|null, "message": …, "payload": {…}, "summary": {…}}`.
///
/// `payload` is the decoded JSON object as received, in Amazon's field names. Input that is not a
/// JSON object of the kind the command reads throws `Unreadable` (the command exits 2); everything
/// else is a report, valid or not.
public enum AmazonInspection {
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

    public init(problem: Problem? = nil, payload: Any? = nil, summary: [String: Any]? = nil) {
      self.problem = problem
      self.payload = payload
      self.summary = summary
    }

    public var isValid: Bool { problem == nil }

    /// The document, pretty-printed with sorted keys; absent members are `null`.
    public var json: String {
      let document: [String: Any] = [
        "verdict": isValid ? "valid" : "invalid", "error": problem?.code ?? NSNull(),
        "message": problem?.message ?? NSNull(), "payload": payload ?? NSNull(), "summary": summary ?? NSNull(),
      ]
      let data =
        (try? JSONSerialization.data(
          withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
      return String(decoding: data, as: UTF8.self)
    }
  }

  /// `bytes` as a JSON object, or `nil`.
  static func jsonObject(_ bytes: some Sequence<UInt8>) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
  }

  /// `value`, or JSON null.
  static func orNull(_ value: Any?) -> Any { value ?? NSNull() }
}
