/// An HTTP listener could not start: which key, which address, and why.
public struct HTTPListenerError: Error, CustomStringConvertible {
  public var key: String
  public var address: ListenAddress
  public var cause: any Error

  public var description: String { "\(key) (\(address)): cannot listen: \(cause)" }
}
