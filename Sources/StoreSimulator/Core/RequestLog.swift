import Synchronization

/// One request to a store's own endpoints as the simulator received it: the target
/// (`apple.api`, `google.api`, `amazon.rvs`, …), the request's path and query as the applied-fault
/// log names it (Amazon's without the shared secret), the virtual and the real time it arrived,
/// and the fault that answered it, if one did.
public struct StoreRequestRecord: Sendable, Hashable, Codable {
  public var target: String
  public var request: String
  public var virtualTimeMs: Int64
  public var realTimeMs: Int64
  public var fault: FaultRule.Mode?
}

/// The store requests the simulator received, oldest first (the last `limit`): how often, and
/// when, a client read a purchase (`GET /sim/requests`, `StoreSimulator.storeRequests`).
final class RequestLog: Sendable {
  static let limit = 20_000
  private let records = Mutex<[StoreRequestRecord]>([])

  func record(_ record: StoreRequestRecord) {
    records.withLock { records in
      if records.count >= Self.limit { records.removeFirst(records.count / 2) }
      records.append(record)
    }
  }

  var all: [StoreRequestRecord] { records.withLock { $0 } }

  func clear() { records.withLock { $0.removeAll() } }
}
