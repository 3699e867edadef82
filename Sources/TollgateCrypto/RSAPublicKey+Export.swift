extension RSAPublicKey {
  /// The big-endian modulus and public exponent, as a JWK carries them (`n` and `e` before
  /// base64url), without leading zero bytes. Read from the key's SubjectPublicKeyInfo:
  /// `SEQUENCE { SEQUENCE { rsaEncryption, NULL }, BIT STRING { SEQUENCE { n, e } } }`.
  public func components() throws(CryptoError) -> (modulus: [UInt8], exponent: [UInt8]) {
    let malformed = CryptoError(code: .malformedKey, message: "not an RSA SubjectPublicKeyInfo")
    var outer = DERReader(try derRepresentation())
    guard var info = outer.read(tag: 0x30) else { throw malformed }
    guard info.read(tag: 0x30) != nil, let bits = info.read(tag: 0x03), bits.bytes.first == 0 else { throw malformed }
    var inner = DERReader(Array(bits.bytes.dropFirst()))
    guard var sequence = inner.read(tag: 0x30), let n = sequence.read(tag: 0x02), let e = sequence.read(tag: 0x02)
    else { throw malformed }
    return (Array(n.bytes.drop { $0 == 0 }), Array(e.bytes.drop { $0 == 0 }))
  }
}

/// Reads DER TLVs one after another (definite lengths only, as DER requires).
private struct DERReader {
  var bytes: ArraySlice<UInt8>

  init(_ bytes: [UInt8]) { self.bytes = bytes[...] }
  init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

  /// The contents of the next element if its tag is `tag`, as a reader of its own.
  mutating func read(tag: UInt8) -> DERReader? {
    guard let first = bytes.first, first == tag, bytes.count >= 2 else { return nil }
    var index = bytes.index(after: bytes.startIndex)
    var length = Int(bytes[index])
    index += 1
    if length & 0x80 != 0 {
      let count = length & 0x7F
      guard count > 0, count <= 4, bytes.endIndex - index >= count else { return nil }
      length = 0
      for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
      index += count
    }
    guard bytes.endIndex - index >= length else { return nil }
    let contents = bytes[index..<index + length]
    bytes = bytes[(index + length)...]
    return DERReader(contents)
  }
}
