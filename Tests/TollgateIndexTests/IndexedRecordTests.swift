import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateIndex

@Suite("The index's compact record")
struct IndexedRecordTests {
  @Test("a record stays 64 bytes (one cache line's worth), its reason in the source's padding")
  func layout() {
    #expect(MemoryLayout<IndexedRecord>.stride == 64)
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
}
