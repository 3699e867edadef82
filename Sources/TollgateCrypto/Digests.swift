import CTollgateCrypto

/// SHA-256.
public enum SHA256 {
  public static func hash(_ message: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    let status = message.withUnsafeBufferPointer { tg_sha256($0.baseAddress, $0.count, &digest) }
    precondition(status == TG_OK, "SHA-256 failed")
    return digest
  }

  public static func hash(_ message: String) -> [UInt8] { hash(Array(message.utf8)) }
}

/// HMAC with SHA-256.
public enum HMACSHA256 {
  public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
    var mac = [UInt8](repeating: 0, count: 32)
    let status = key.withUnsafeBufferPointer { k in
      message.withUnsafeBufferPointer { m in tg_hmac_sha256(k.baseAddress, k.count, m.baseAddress, m.count, &mac) }
    }
    precondition(status == TG_OK, "HMAC-SHA256 failed")
    return mac
  }

  /// Compares two MACs in time independent of where they differ.
  public static func isEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
  }
}

extension Sequence<UInt8> {
  /// Lowercase hexadecimal, two digits a byte (digests, fingerprints, MACs).
  public var hexString: String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in self {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
