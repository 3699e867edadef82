#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files Tollgate makes that only its own account may read: the database (SQLite gives its
/// `-wal`, `-shm` and journal files the database file's mode), backups, keys. Each is created with
/// an explicit mode, never whatever the umask leaves (issue 25 item 7: a database created 0644 let
/// any local user read receipt ids and user ids).
public enum PrivateFile {
  /// Owner read and write, nobody else anything.
  public static let ownerOnly: mode_t = 0o600
  /// Owner and group read and write: for a Unix socket that a group of client accounts shares.
  public static let ownerAndGroup: mode_t = 0o660

  /// Creates an empty file at `path` with `mode` (0600) unless something is there already; true
  /// when it made one. An existing file keeps its mode (`ExposedFile` says when that is too
  /// open). Any other failure (a missing folder, no permission) is left to whoever opens the path
  /// next, which reports it in its own words.
  @discardableResult
  public static func createIfMissing(_ path: String, mode: mode_t = ownerOnly) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
    guard fd >= 0 else { return false }
    // The umask may have taken bits away from `mode`; never add any it did not ask for.
    _ = fchmod(fd, mode)
    close(fd)
    return true
  }

  /// Writes `bytes` to `path` atomically (a new file beside it, renamed over it) with `mode`
  /// (0600) from the first byte: no moment when the content is readable by others.
  public static func save(_ bytes: [UInt8], to path: String, mode: mode_t = ownerOnly) throws(PrivateFileError) {
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
    guard fd >= 0 else { throw PrivateFileError(path: path, errno: errno) }
    var failure: Int32 = fchmod(fd, mode) == 0 ? 0 : errno
    if failure == 0 {
      failure = bytes.withUnsafeBytes { buffer -> Int32 in
        var offset = 0
        while offset < buffer.count {
          let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            return errno
          }
          offset += written
        }
        return fsync(fd) == 0 ? 0 : errno
      }
    }
    close(fd)
    if failure == 0, rename(temporary, path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      throw PrivateFileError(path: path, errno: failure)
    }
  }
}

/// A private file could not be written.
public struct PrivateFileError: Error, Sendable, CustomStringConvertible {
  public let path: String
  public let errno: Int32

  public var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
}

/// A file that users other than its owner may read or write.
public struct ExposedFile: Sendable, Hashable, CustomStringConvertible {
  public let path: String
  /// Its permission bits (`st_mode & 0o777`).
  public let mode: mode_t

  /// `0644`.
  public var octalMode: String {
    let digits = String(mode & 0o777, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  public var description: String { "\(path) (mode \(octalMode))" }

  /// The database at `path` and its `-wal`, `-shm` and `-journal` files, those anyone but their
  /// owner may read or write: they hold every receipt id, purchase token and user id.
  public static func ofDatabase(_ path: String) -> [ExposedFile] {
    among([path] + ["-wal", "-shm", "-journal"].map { path + $0 })
  }

  /// Those of `paths` that exist and that anyone but their owner may read or write (group or
  /// world bits: Tollgate creates its files 0600). Missing files are left out.
  public static func among(_ paths: [String]) -> [ExposedFile] {
    paths.compactMap { path in
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      let mode = info.st_mode & 0o777
      return mode & 0o077 != 0 ? ExposedFile(path: path, mode: mode) : nil
    }
  }
}
