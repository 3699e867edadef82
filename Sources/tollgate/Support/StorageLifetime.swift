import TollgateStorage
import TollgateWorker

/// Storage a command opened (`StorageLocation.entitlementStorage`, `workerStorage`) is closed when
/// the command is done with it, whether it finished or failed: on PostgreSQL that closes its
/// connection pool before the process exits, instead of dropping connections the server then
/// holds until it notices.
enum StorageLifetime {
  /// Runs `body` with `storage`, then closes it.
  static func using<Result>(
    _ storage: any EntitlementStorage, _ body: (any EntitlementStorage) async throws -> Result
  ) async throws -> Result {
    do {
      let result = try await body(storage)
      await storage.close()
      return result
    } catch {
      await storage.close()
      throw error
    }
  }

  /// Runs `body` with `storage`, then closes it.
  static func using<Result>(
    _ storage: any WorkerStorage, _ body: (any WorkerStorage) async throws -> Result
  ) async throws -> Result {
    do {
      let result = try await body(storage)
      await storage.close()
      return result
    } catch {
      await storage.close()
      throw error
    }
  }
}
