import Synchronization
import TollgateCore

/// One entitlement record of a snapshot read in place (`EntitlementStorage.readSnapshot(into:ends:)`):
/// the texts are the storage's own bytes, valid only during the call that hands the row over, so
/// a load builds no `String` for a record it keeps in compact form.
public struct EntitlementRowView {
  public var userId: UnsafeRawBufferPointer
  public var entitlement: UnsafeRawBufferPointer
  public var source: UnsafeRawBufferPointer
  public var productId: UnsafeRawBufferPointer
  /// `EntitlementRecord.replaces`, separated by spaces (usually empty).
  public var replaces: UnsafeRawBufferPointer
  public var store: Store
  public var environment: StoreEnvironment
  public var state: SubscriptionState
  public var reason: StateReason?
  public var willRenew: Bool
  public var expiresAtMs: Int64
  public var accessEndsAtMs: Int64
  public var verifiedAtMs: Int64

  public init(
    userId: UnsafeRawBufferPointer, entitlement: UnsafeRawBufferPointer, source: UnsafeRawBufferPointer,
    productId: UnsafeRawBufferPointer, replaces: UnsafeRawBufferPointer, store: Store, environment: StoreEnvironment,
    state: SubscriptionState, reason: StateReason?, willRenew: Bool, expiresAtMs: Int64, accessEndsAtMs: Int64,
    verifiedAtMs: Int64
  ) {
    self.userId = userId
    self.entitlement = entitlement
    self.source = source
    self.productId = productId
    self.replaces = replaces
    self.store = store
    self.environment = environment
    self.state = state
    self.reason = reason
    self.willRenew = willRenew
    self.expiresAtMs = expiresAtMs
    self.accessEndsAtMs = accessEndsAtMs
    self.verifiedAtMs = verifiedAtMs
  }

  /// The record as `streamSnapshot` gives it.
  public var record: EntitlementRecord {
    func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }
    return EntitlementRecord(
      userId: text(userId), entitlement: text(entitlement), source: text(source), store: store,
      productId: text(productId), environment: environment, state: state, willRenew: willRenew,
      expiresAtMs: expiresAtMs, accessEndsAtMs: accessEndsAtMs, verifiedAtMs: verifiedAtMs, reason: reason,
      replaces: text(replaces).split(separator: " ").map(String.init))
  }

  /// Calls `body` with `record` as a row.
  public static func with<Result>(_ record: EntitlementRecord, _ body: (EntitlementRowView) -> Result) -> Result {
    var userId = record.userId
    var entitlement = record.entitlement
    var source = record.source
    var productId = record.productId
    var replaces = record.replaces.joined(separator: " ")
    return userId.withUTF8 { userId in
      entitlement.withUTF8 { entitlement in
        source.withUTF8 { source in
          productId.withUTF8 { productId in
            replaces.withUTF8 { replaces in
              body(
                EntitlementRowView(
                  userId: UnsafeRawBufferPointer(userId), entitlement: UnsafeRawBufferPointer(entitlement),
                  source: UnsafeRawBufferPointer(source), productId: UnsafeRawBufferPointer(productId),
                  replaces: UnsafeRawBufferPointer(replaces), store: record.store, environment: record.environment,
                  state: record.state, reason: record.reason, willRenew: record.willRenew,
                  expiresAtMs: record.expiresAtMs, accessEndsAtMs: record.accessEndsAtMs,
                  verifiedAtMs: record.verifiedAtMs))
            }
          }
        }
      }
    }
  }
}

/// What a snapshot is read into (the service's index builds itself from one). The storage may read
/// the table from both ends at once, one sink per end, each on a thread of its own.
public protocol EntitlementSnapshotBuilder: Sendable {
  /// About how many rows the snapshot holds, before the first row (a count the storage made; it
  /// may differ a little from what is read): room for them is made at once.
  func expect(rows: Int)

  /// A sink for the rows of one end: `descending` false gives the rows in the order of
  /// (user id, entitlement, source) by their bytes, true in the reverse order; every row of a user
  /// comes before the next user's. The storage may also hand over rows in no order (one sink only).
  func makeSink(descending: Bool) -> any EntitlementRowSink
}

/// Takes one end's rows, on one thread.
public protocol EntitlementRowSink: AnyObject {
  /// Takes the next row; false: stop reading, the other end has the rest.
  func take(_ row: EntitlementRowView) -> Bool
  /// The end of the rows was reached: keep what is still pending.
  func finish()
}

/// The slow, general form of `readSnapshot(into:ends:)`, for storages without their own: every
/// record from `streamSnapshot`, one sink.
extension EntitlementStorage {
  public func readSnapshot(into builder: any EntitlementSnapshotBuilder, ends: Int) async throws -> Int64 {
    // `streamSnapshot` hands records over one after another; the lock only satisfies Sendable.
    let sink = Mutex(builder.makeSink(descending: false))
    let head = try await streamSnapshot { record in
      sink.withLock { sink in _ = EntitlementRowView.with(record) { sink.take($0) } }
    }
    sink.withLock { $0.finish() }
    return head
  }
}

/// Decodes a store's vocabulary name from its bytes without building a `String`: what the
/// snapshot readers use for `store`, `environment`, `state` and `reason`. Inlinable, so that a
/// reader in another module gets it specialised (generic, it cost a type-metadata lookup and
/// reference counting per row).
public struct VocabularyBytes<Name: RawRepresentable & CaseIterable & Sendable>: Sendable
where Name.RawValue == String {
  /// Every name's UTF-8 back to back, where each ends, and the names in that order.
  @usableFromInline let utf8: [UInt8]
  @usableFromInline let ends: [Int]
  @usableFromInline let names: [Name]

  public init() {
    names = Array(Name.allCases)
    utf8 = names.flatMap { Array($0.rawValue.utf8) }
    var end = 0
    ends = names.map {
      end += $0.rawValue.utf8.count
      return end
    }
  }

  /// The name spelled by `bytes`, or nil when it is none of `Name`'s.
  @inlinable
  public func name(_ bytes: UnsafeRawBufferPointer) -> Name? {
    utf8.withUnsafeBytes { utf8 in
      ends.withUnsafeBufferPointer { ends in
        var start = 0
        for (number, end) in ends.enumerated() {
          defer { start = end }
          guard end - start == bytes.count else { continue }
          var offset = 0
          while offset < bytes.count, utf8[start + offset] == bytes[offset] { offset += 1 }
          if offset == bytes.count { return names[number] }
        }
        return nil
      }
    }
  }
}
