import TollgateCore
import TollgateWorker

/// The fake's store health: the failing stores every handle on it shares, and a fault to inject.
struct FakeStoreHealthBook: Sendable {
  var failingSince: [Store: Int64] = [:]
  /// Reads of store health fail while set (a database that cannot be read for a while).
  var readsFail = false
  /// How many times the store health was read.
  var reads = 0
}

/// A read of store health that the test made fail.
struct FakeStoreHealthReadError: Error {}

extension FakeWorkerStorage {
  func recordStoreFailure(_ store: Store, atMs: Int64) async throws {
    storeHealthBook.failingSince[store] = min(storeHealthBook.failingSince[store] ?? atMs, atMs)
  }

  func recordStoreSuccess(_ store: Store, nowMs: Int64) async throws -> Bool {
    storeHealthBook.failingSince.removeValue(forKey: store) != nil
  }

  func storeOutages() async throws -> [Store: Int64] {
    storeHealthBook.reads += 1
    if storeHealthBook.readsFail { throw FakeStoreHealthReadError() }
    return storeHealthBook.failingSince
  }

  /// Makes reads of store health fail (true) or work again (false).
  func failStoreHealthReads(_ fail: Bool) { storeHealthBook.readsFail = fail }
}
