import Foundation
import Synchronization
import TollgateCrypto

/// The simulator's generated RSA keys and the files it keeps secrets in.
enum SimulatorKeys {
  /// Keys generated in this process, by purpose. A simulator's keys stand for nothing real, and an
  /// RSA-2048 key takes a tenth of a second or more to generate on the thread that asks: every
  /// simulator of one process that needs a new key (tests start hundreds) shares one per purpose,
  /// made once.
  private static let generated = Mutex<[String: RSAPrivateKey]>([:])

  static func rsa(_ purpose: String) throws -> RSAPrivateKey {
    if let key = generated.withLock({ $0[purpose] }) { return key }
    let key = try RSAPrivateKey.generate(bits: 2048)
    return generated.withLock { keys in
      if let first = keys[purpose] { return first }
      keys[purpose] = key
      return key
    }
  }

  /// Writes `bytes` to `path` atomically, readable by its owner only.
  static func writePrivate(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
  }
}
