#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which file a path names: its device and inode. Remembered when a database is opened, so that a
/// process notices when the path no longer names the file it has open (deleted, or renamed over
/// by a restore), instead of writing on into a file nobody will read again.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
  public let device: UInt64
  public let inode: UInt64

  public init(device: UInt64, inode: UInt64) {
    self.device = device
    self.inode = inode
  }

  /// The identity of the file at `path` now; nil when there is none (or it cannot be looked at).
  public static func of(path: String) -> FileIdentity? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  public var description: String { "device \(device), inode \(inode)" }
}
