/// The error body of a Google API call: `{"error": {"code", "message", "status", "errors": […]}}`.
public struct GoogleAPIErrorResponse: Sendable, Hashable, Decodable {
  public var error: GoogleAPIError?

  public init() {}

  /// The first `errors[].reason`, e.g. `purchaseTokenDoesNotMatchPackageName`.
  public var reason: String? { error?.errors?.lazy.compactMap(\.reason).first }
}

/// `error`.
public struct GoogleAPIError: Sendable, Hashable, Decodable {
  /// The HTTP status code.
  public var code: Int?
  public var message: String?
  /// The canonical status, e.g. INVALID_ARGUMENT.
  public var status: String?
  public var errors: [GoogleAPIErrorItem]?
}

/// One `error.errors[]` entry.
public struct GoogleAPIErrorItem: Sendable, Hashable, Decodable {
  public var message: String?
  public var domain: String?
  public var reason: String?
}
