/// Pairs of strings as the hot path sees a read's requests: every string's UTF-8 bytes back to
/// back in one buffer, handed to `body` as (user id, entitlement) byte ranges that stay valid
/// during the call.
public func withPackedBytes<Result>(
  _ pairs: [(user: String, entitlement: String)],
  _ body: ([(userId: UnsafeRawBufferPointer, entitlement: UnsafeRawBufferPointer)]) -> Result
) -> Result {
  let joined = pairs.flatMap { Array($0.user.utf8) + Array($0.entitlement.utf8) }
  return joined.withUnsafeBytes { bytes in
    var offset = 0
    func next(_ count: Int) -> UnsafeRawBufferPointer {
      defer { offset += count }
      return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }
    return body(pairs.map { (next($0.user.utf8.count), next($0.entitlement.utf8.count)) })
  }
}
