import PropertyBased
import Testing
import TollgateTesting

@testable import TollgateIndex

@Suite("Byte-keyed table of the index")
struct ByteKeyTableTests {
  static func key(_ number: Int, long: Bool) -> String {
    long ? "user-\(number)-" + String(repeating: "é", count: 100) : "user-\(number)"
  }

  @Test(
    "random sets, updates and removals agree with a Dictionary (growth, backward shift, compaction)",
    arguments: [1, 2, 3])
  func agreesWithDictionary(seed: UInt64) {
    // A deterministic generator (swift-property-based's), so a failure can be replayed.
    var random = Xoshiro(seed: (seed, seed ^ 0x5555, ~seed, seed &* 31))
    // A tiny seed set of hash bits would not make collisions likelier; a fixed seed makes the run
    // repeatable.
    var table = ByteKeyTable(seed: seed)
    var model: [String: Int32] = [:]
    for step in 0..<20_000 {
      let key = Self.key(Int.random(in: 0..<3_000, using: &random), long: step.isMultiple(of: 3))
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        let value = Int32.random(in: 0...Int32.max, using: &random)
        table.set(key, to: value)
        model[key] = value
      case 5..<8:
        #expect(table.remove(key) == model.removeValue(forKey: key))
      default:
        #expect(table.find(key) == model[key])
      }
      if step.isMultiple(of: 2_000) { #expect(table.count == model.count) }
    }
    #expect(table.count == model.count)
    for (key, value) in model { #expect(table.find(key) == value) }
    var seen: [String: Int32] = [:]
    table.forEach { seen[String(decoding: $0, as: UTF8.self)] = $1 }
    #expect(seen == model)
    // Everything out again: the table is empty and still works.
    for key in model.keys { #expect(table.remove(key) != nil) }
    #expect(table.count == 0)
    #expect(table.find("user-1") == nil)
    table.set("user-1", to: 7)
    #expect(table.find("user-1") == 7)
  }

  @Test(
    "keys of 65,535 bytes and more (their length kept in the arena) and their neighbours, through growth and removal")
  func longKeys() {
    var table = ByteKeyTable(seed: 7)
    let lengths = [0, 1, 65_534, 65_535, 65_536, 100_000]
    let keys =
      lengths.map { String(repeating: "k", count: $0) } + lengths.map { "x" + String(repeating: "k", count: $0) }
    for (value, key) in keys.enumerated() { table.set(key, to: Int32(value)) }
    for n in 0..<100 { table.set("user-\(n)", to: Int32(1_000 + n)) }  // growth rehashes the long keys too
    for (value, key) in keys.enumerated() { #expect(table.find(key) == Int32(value)) }
    #expect(table.find(String(repeating: "k", count: 65_537)) == nil)
    var seen = 0
    table.forEach { key, value in
      if value < 1_000 {
        seen += 1
        #expect(key.count == keys[Int(value)].utf8.count)
      }
    }
    #expect(seen == keys.count)
    for key in keys where key.utf8.count >= 65_535 { #expect(table.remove(key) != nil) }
    for n in 0..<100 { #expect(table.find("user-\(n)") == Int32(1_000 + n)) }
    #expect(table.find("x" + String(repeating: "k", count: 1)) == 7)
    #expect(table.find("x" + String(repeating: "k", count: 65_534)) == nil, "65,535 bytes: removed")
  }

  @Test("a table sized for its keys up front does not grow while they go in, and exchange returns the old value")
  func presized() {
    #expect(ByteKeyTable.capacity(for: 10_000_000) == 16_777_216)
    #expect(ByteKeyTable.capacity(for: 12) == 16 && ByteKeyTable.capacity(for: 13) == 32)
    var table = ByteKeyTable(capacity: 1_000, arenaBytes: 10_000)
    var reserved = ByteKeyTable()
    reserved.set("early", to: 1)
    reserved.reserve(keys: 1_000)
    #expect(reserved.find("early") == 1)
    for n in 0..<1_000 {
      #expect(Array("user-\(n)".utf8).withUnsafeBytes { table.exchange($0, for: Int32(n)) } == nil)
      reserved.set("user-\(n)", to: Int32(n))
    }
    #expect(Array("user-5".utf8).withUnsafeBytes { table.exchange($0, for: 50) } == 5)
    #expect(table.find("user-5") == 50 && table.count == 1_000 && reserved.find("user-999") == 999)
  }

  @Test("keys are bytes: empty, a prefix of another, non-ASCII, and lookups from raw bytes")
  func byteKeys() {
    var table = ByteKeyTable()
    table.set("", to: 1)
    table.set("user", to: 2)
    table.set("user-1", to: 3)
    table.set("üser-1", to: 4)
    #expect(table.find("") == 1)
    #expect(table.find("user") == 2)
    #expect(table.find("user-") == nil)
    #expect(table.find("user-1") == 3)
    #expect(table.find("üser-1") == 4)
    let bytes: [UInt8] = Array("user-1".utf8)
    #expect(bytes.withUnsafeBytes { table.find($0) } == 3)
    #expect(table.count == 4)
  }

  @Test("the hash spreads sequential ids over the table")
  func spreads() {
    var buckets = [Int](repeating: 0, count: 1_024)
    for number in 0..<100_000 {
      var key = "user-\(number)"
      let hash = key.withUTF8 { ByteKeyTable.hash(UnsafeRawBufferPointer($0), seed: 42) }
      buckets[Int(hash & 1_023)] += 1
    }
    // About 98 per bucket; a poor hash of sequential ids leaves buckets empty or piles them up.
    #expect(buckets.min()! > 50)
    #expect(buckets.max()! < 160)
  }
}
