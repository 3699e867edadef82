import TollgateCore
import TollgateWorker

/// The fake's store health: the failing stores every handle on it shares, and a fault to inject.
package struct FakeStoreHealthBook: Sendable {
  package var failingSince: [Store: Int64] = [:]
  /// Reads of store health fail while set (a database that cannot be read for a while).
  package var readsFail = false
  /// How many times the store health was read.
  package var reads = 0
}

/// A read of store health that the test made fail.
package struct FakeStoreHealthReadError: Error {}

extension FakeWorkerStorage {
  package func recordStoreFailure(_ store: Store, atMs: Int64) async throws {
    storeHealthBook.failingSince[store] = min(storeHealthBook.failingSince[store] ?? atMs, atMs)
  }

  package func recordStoreSuccess(_ store: Store, nowMs: Int64) async throws -> Bool {
    storeHealthBook.failingSince.removeValue(forKey: store) != nil
  }

  package func storeOutages() async throws -> [Store: Int64] {
    storeHealthBook.reads += 1
    if storeHealthBook.readsFail { throw FakeStoreHealthReadError() }
    return storeHealthBook.failingSince
  }

  /// Makes reads of store health fail (true) or work again (false).
  package func failStoreHealthReads(_ fail: Bool) { storeHealthBook.readsFail = fail }
}
