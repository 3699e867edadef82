extension Tollgate_V1_Error {
  /// An application error: its code (docs/protocol.md, "Errors") and a sentence a caller can act on.
  public init(_ code: Tollgate_V1_ErrorCode, _ message: String) {
    self.init()
    self.code = code
    self.message = message
  }
}
