import Foundation

/// The document every `tollgate inspect` command of Google Play and the Amazon Appstore prints:
/// `{"verdict": "valid"|"invalid", "error": CODE|null, "message": …, "payload": {…}, "summary": {…}}`
/// and any further top-level members a command adds. Holds decoded JSON (`Any`), so it stays on the
/// thread that made it.
public struct InspectionReport {
  public var problem: InspectionProblem?
  /// The decoded JSON object as received, in the store's field names.
  public var payload: Any?
  public var summary: [String: Any]?
  /// Further top-level members (Google's `envelope` and `authentication`).
  public var extra: [String: Any]

  public init(
    problem: InspectionProblem? = nil, payload: Any? = nil, summary: [String: Any]? = nil, extra: [String: Any] = [:]
  ) {
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
    return Self.render(document)
  }

  /// `object` as pretty-printed JSON with sorted keys and unescaped slashes.
  public static func render(_ object: [String: Any]) -> String {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// `bytes` as a JSON object, or `nil`.
  public static func jsonObject(_ bytes: some Sequence<UInt8>) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
  }
}

/// Why a report is invalid: a stable snake_case code and a sentence.
public struct InspectionProblem: Sendable, Hashable {
  public var code: String
  public var message: String

  public init(code: String, message: String) {
    self.code = code
    self.message = message
  }
}

/// Input that is none of the forms an inspect command reads (the command exits 2).
public struct InspectionUnreadable: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String

  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
