import Foundation

extension GooglePlayInspection {
  /// A push request's OIDC token to verify, with the keys and expectations to verify it by.
  public struct PushAuthenticationCheck: Sendable {
    /// The compact token (a leading `Bearer ` is accepted).
    public var token: String
    public var keys: GoogleKeySet
    public var config: OIDCTokenVerifier.Config
    public var atMs: Int64

    public init(token: String, keys: GoogleKeySet, config: OIDCTokenVerifier.Config, atMs: Int64) {
      self.token = token
      self.keys = keys
      self.config = config
      self.atMs = atMs
    }
  }

  /// Inspects a Real-time developer notification given as a Pub/Sub push envelope, a bare
  /// `DeveloperNotification`, or the base64 `message.data`.
  ///
  /// `payload` is the notification's JSON object; an envelope is echoed as `envelope`. Invalid
  /// when the envelope's data is not a notification (`missing_data`, `invalid_base64`,
  /// `not_a_developer_notification`, `empty_notification`), a notification does not decode
  /// (`malformed_notification`) or names no kind Tollgate knows (`unknown_notification`), or,
  /// with `authentication`, the token is refused (its `OIDCVerificationError` code). Throws
  /// `Unreadable` for input in none of the three forms.
  public static func inspectNotification(_ text: String, authentication: PushAuthenticationCheck? = nil)
    throws(Unreadable) -> Report
  {
    var report = try notificationReport(text)
    if let authentication {
      let (object, problem) = authenticate(authentication)
      report.extra["authentication"] = object
      if report.problem == nil { report.problem = problem }
    }
    return report
  }

  private static func notificationReport(_ text: String) throws(Unreadable) -> Report {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let object = jsonObject(Array(trimmed.utf8)) else {
      if (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8), options: .fragmentsAllowed)) != nil {
        throw Unreadable("JSON, but not an object")
      }
      guard let bytes = base64(trimmed) else { throw Unreadable("neither JSON nor base64") }
      guard let decoded = jsonObject(bytes) else { throw Unreadable("base64, but not of a JSON object") }
      return try bare(decoded, bytes: bytes)
    }
    guard object["message"] != nil else { return try bare(object, bytes: Array(trimmed.utf8)) }

    var report = Report(extra: ["envelope": object])
    let envelope: PubSubPushEnvelope
    do {
      envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(trimmed.utf8))
    } catch {
      report.problem = Problem(code: "malformed_envelope", message: "not a Pub/Sub push envelope: \(describe(error))")
      return report
    }
    let data = envelope.message?.data
    report.payload = data.flatMap(base64).flatMap(jsonObject)
    do {
      let notification = try envelope.developerNotification()
      report.summary = GooglePlayNotificationSummary(notification: notification, envelope: envelope).jsonObject
      report.problem = problem(notification)
    } catch {
      report.summary = GooglePlayNotificationSummary(notification: nil, envelope: envelope).jsonObject
      report.problem = problem(error)
    }
    return report
  }

  /// A bare notification (`bytes` are its JSON, `object` the same decoded).
  private static func bare(_ object: [String: Any], bytes: [UInt8]) throws(Unreadable) -> Report {
    var report = Report(payload: object, extra: ["envelope": NSNull()])
    do {
      let notification = try DeveloperNotification.decode(json: Data(bytes))
      report.summary = GooglePlayNotificationSummary(notification: notification).jsonObject
      report.problem = problem(notification)
    } catch .emptyNotification {
      throw Unreadable("a JSON object that is neither a Pub/Sub push envelope nor a DeveloperNotification")
    } catch {
      report.problem = Problem(code: "malformed_notification", message: "not a DeveloperNotification: \(error)")
    }
    return report
  }

  /// A notification Tollgate cannot act on: none of the members it knows is set.
  static func problem(_ notification: DeveloperNotification) -> Problem? {
    guard notification.kind == .unknown else { return nil }
    return Problem(
      code: "unknown_notification",
      message: "no notification member Tollgate knows is set: the worker acknowledges it and changes nothing")
  }

  static func problem(_ error: DeveloperNotificationError) -> Problem {
    switch error {
    case .missingData:
      Problem(code: "missing_data", message: "the envelope has no message.data")
    case .invalidBase64:
      Problem(code: "invalid_base64", message: "message.data is not base64")
    case .notADeveloperNotification(let detail):
      Problem(code: "not_a_developer_notification", message: "message.data is not a DeveloperNotification: \(detail)")
    case .emptyNotification:
      Problem(code: "empty_notification", message: "message.data is a JSON object with no DeveloperNotification member")
    }
  }

  /// `{"verdict", "error", "email", "audience"}` of the token, and the problem if it is refused.
  /// `email` and `audience` are what the token claims, shown even when it is refused.
  static func authenticate(_ check: PushAuthenticationCheck) -> ([String: Any], Problem?) {
    let token = GoogleIDToken.bearerToken(fromAuthorization: check.token).map(String.init) ?? check.token
    let result = OIDCTokenVerifier(config: check.config).verify(token, keys: check.keys, nowMs: check.atMs)
    let claimed =
      (try? GoogleIDToken.parse(token).get()).flatMap {
        try? JSONDecoder().decode(GoogleIDToken.Claims.self, from: Data($0.payload))
      }
    let audience: Any =
      switch claimed?.audiences.count ?? 0 {
      case 0: NSNull()
      case 1: claimed?.audiences[0] ?? NSNull()
      default: claimed?.audiences ?? []
      }
    var object: [String: Any] = ["email": orNull(claimed?.email), "audience": audience]
    switch result {
    case .success:
      object["verdict"] = "valid"
      object["error"] = NSNull()
      return (object, nil)
    case .failure(let error):
      object["verdict"] = "invalid"
      object["error"] = error.code.description
      return (object, Problem(code: error.code.description, message: "push authentication: \(error.message)"))
    }
  }

  /// Standard or URL-safe base64, padded or not; `nil` if it is not.
  static func base64(_ text: String) -> [UInt8]? {
    var text = text.filter { !$0.isWhitespace }.replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    if text.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.count % 4) }
    return Data(base64Encoded: text).map(Array.init)
  }
}
