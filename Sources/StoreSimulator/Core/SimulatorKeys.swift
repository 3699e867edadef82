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

  /// Writes `bytes` to `path` atomically (a new file beside it, renamed over it), readable by its
  /// owner only from the first byte: the file is created 0600, whatever the umask (issue 25 item 7).
  static func writePrivate(_ bytes: [UInt8], to path: String) throws {
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    do {
      guard fchmod(fd, 0o600) == 0 else {
        throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
      }
      try handle.write(contentsOf: bytes)
      try handle.synchronize()
      try handle.close()
      guard rename(temporary, path) == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
      }
    } catch {
      try? handle.close()
      unlink(temporary)
      throw error
    }
  }

  /// Creates `path` (and its parents) if missing, the last one 0700: the simulator's keys live there.
  static func makeDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }
}
