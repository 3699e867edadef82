import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateIndex

@Suite("The index's compact record")
struct IndexedRecordTests {
  @Test("a record stays 56 bytes: no padding, reason, environment and renewal in one byte")
  func layout() {
    #expect(MemoryLayout<IndexedRecord>.stride == 56)
  }

  @Test("the packed byte keeps each of reason, environment and renewal apart from the others")
  func packedFields() {
    var strings = InternTable()
    var record = IndexedRecord(.sample(userId: "u", expiresAtMs: 1), strings: &strings)
    for code in 0...UInt8(IndexedRecord.reasons.count) {
      for environment in StoreEnvironment.allCases {
        for willRenew in [false, true] {
          record.reason = code
          record.environment = environment
          record.willRenew = willRenew
          #expect(record.reason == code && record.environment == environment && record.willRenew == willRenew)
          record.willRenew.toggle()
          record.environment = environment == .production ? .sandbox : .production
          #expect(record.reason == code)
        }
      }
    }
  }

  @Test("every lifecycle reason, and none, survives the index")
  func reasonRoundTrip() {
    let index = EntitlementIndex()
    for (number, reason) in ([nil] + StateReason.allCases.map(Optional.some)).enumerated() {
      var record = EntitlementRecord.sample(userId: "user-\(number)", expiresAtMs: 2_000_000_000_000)
      record.reason = reason
      index.insert(record)
      #expect(index.records(for: "user-\(number)").first?.reason == reason)
    }
  }

  @Test("the index counts the records the store-outage policy keeps in, through inserts, replacements and removals")
  func storeUnreachableCount() {
    let index = EntitlementIndex()
    var kept = EntitlementRecord.sample(userId: "kept", expiresAtMs: 2_000_000_000_000)
    kept.reason = .storeUnreachable
    index.insert(kept)
    index.insert(.sample(userId: "other", expiresAtMs: 2_000_000_000_000))
    #expect(index.storeUnreachableCount == 1)
    var confirmed = kept
    confirmed.reason = .currentPeriod
    index.replace(userId: "kept", with: [confirmed])
    #expect(index.storeUnreachableCount == 0)
    index.replace(userId: "other", with: [kept, kept])
    #expect(index.storeUnreachableCount == 2)
    index.replace(userId: "other", with: [])
    #expect(index.storeUnreachableCount == 0)
  }

  @Test("a record's replaced purchases are kept beside it, and a freed slot does not pass them on")
  func replacesKeptBeside() {
    let index = EntitlementIndex()
    var upgraded = EntitlementRecord.sample(userId: "g", expiresAtMs: 2_000_000_000_000)
    upgraded.replaces = ["tok-2", "tok-1"]
    index.insert(upgraded)
    index.insert(.sample(userId: "plain", expiresAtMs: 2_000_000_000_000))
    #expect(index.records(for: "g").first?.replaces == ["tok-2", "tok-1"])
    #expect(index.records(for: "plain").first?.replaces == [])
    // The user's records are replaced: the slot is reused by a record without a chain.
    index.replace(userId: "g", with: [.sample(userId: "g", expiresAtMs: 2_000_000_000_000)])
    #expect(index.records(for: "g").first?.replaces == [])
    index.replace(userId: "h", with: [upgraded])
    #expect(index.records(for: "h").first?.replaces == ["tok-2", "tok-1"])
  }
}
