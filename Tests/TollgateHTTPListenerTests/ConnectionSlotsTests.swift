import Testing
import TollgateHTTPListener

/// The one connection-slot counter both HTTP listeners and the gRPC door count their open
/// connections with.
@Suite("Connection slots")
struct ConnectionSlotsTests {
  @Test("acquire takes slots up to the capacity, then refuses without taking one")
  func capacity() {
    let slots = ConnectionSlots(capacity: 3)
    #expect((0..<3).allSatisfy { _ in slots.acquire() })
    #expect(slots.count == 3)
    #expect(!slots.acquire())
    #expect(slots.count == 3)
  }

  @Test("release frees a slot for the next acquire")
  func releaseFrees() {
    let slots = ConnectionSlots(capacity: 1)
    #expect(slots.acquire())
    #expect(!slots.acquire())
    slots.release()
    #expect(slots.count == 0)
    #expect(slots.acquire())
    #expect(slots.count == 1)
  }

  @Test("a slot taken over capacity counts until released, and acquire refuses meanwhile")
  func overCapacity() {
    let slots = ConnectionSlots(capacity: 1)
    #expect(slots.acquire())
    slots.acquireOverCapacity()
    #expect(slots.count == 2)
    slots.release()
    #expect(!slots.acquire())
    slots.release()
    #expect(slots.acquire())
  }

  @Test("concurrent acquires never take more than the capacity")
  func concurrentAcquires() async {
    let capacity = 50
    let slots = ConnectionSlots(capacity: capacity)
    // Every task takes and gives back slots many times over; a slot taken past the cap would show
    // in the count seen right after a successful acquire, or in the number held at the end.
    let (granted, most) = await withTaskGroup(of: (granted: Int, most: Int).self) { group in
      for _ in 0..<8 {
        group.addTask {
          var granted = 0
          var most = 0
          for round in 0..<20_000 {
            guard slots.acquire() else { continue }
            granted += 1
            most = max(most, slots.count)
            if round % 3 != 0 { slots.release() }
          }
          return (granted, most)
        }
      }
      return await group.reduce((0, 0)) { ($0.0 + $1.granted, max($0.1, $1.most)) }
    }
    #expect(most <= capacity)
    #expect(slots.count == capacity, "kept slots fill the cap and no more")
    #expect(granted > capacity)
  }
}
