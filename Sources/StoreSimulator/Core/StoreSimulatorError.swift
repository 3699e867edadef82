/// Why a control or store request could not be carried out. The HTTP layer maps `code` to a
/// status in one place (`HTTPAnswer.error`).
public struct StoreSimulatorError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case invalidRequest, notFound, conflict, startup
    }
    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The request is malformed or names an unknown product/app (HTTP 400).
    public static let invalidRequest = Code(.invalidRequest)
    /// No such subscription or transaction (HTTP 404).
    public static let notFound = Code(.notFound)
    /// The subscription is not in a state that allows this (HTTP 409).
    public static let conflict = Code(.conflict)
    /// The simulator could not start (certificates, data directory, port).
    public static let startup = Code(.startup)

    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String
  public var cause: (any Error)?

  public init(code: Code, message: String, cause: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.cause = cause
  }

  public var description: String { "StoreSimulatorError(\(code)): \(message)" }

  static func invalid(_ message: String) -> StoreSimulatorError { .init(code: .invalidRequest, message: message) }
  static func notFound(_ message: String) -> StoreSimulatorError { .init(code: .notFound, message: message) }
  static func conflict(_ message: String) -> StoreSimulatorError { .init(code: .conflict, message: message) }
}
