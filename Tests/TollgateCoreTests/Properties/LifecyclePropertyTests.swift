import PropertyBased
import Testing
import TollgateCore

@Suite("Lifecycle invariants")
struct LifecyclePropertyTests {
  static let numbers = Gen.int(in: 0...1_000_000).array(of: 40)

  @Test("the state is a function of the inputs, whatever the order of the transactions")
  func stateIsAFunctionOfInputs() async {
    await propertyCheck(count: 10000, input: Self.numbers, Gen.int(in: 0...100)) { numbers, rotation in
      let scenario = Scenario(numbers)
      let first = scenario.evaluate()
      #expect(scenario.evaluate() == first)
      var shuffled = scenario.history
      let k = rotation % max(1, shuffled.transactions.count)
      shuffled.transactions = Array(shuffled.transactions[k...] + shuffled.transactions[..<k]).reversed()
      #expect(scenario.evaluate(shuffled) == first)
    }
  }

  @Test("adding a later renewal never shortens access")
  func laterRenewalNeverShortensAccess() async {
    await propertyCheck(count: 10000, input: Self.numbers, Gen.int64(in: 7...60), Gen.int(in: 0...1)) {
      numbers, length, gap in
      let scenario = Scenario(numbers)
      let before = scenario.evaluate()
      var renewed = scenario.history
      let start = (renewed.transactions.map(\.expiresDateMs).max() ?? d(0)) + Int64(gap) * day
      renewed.transactions.append(
        StoreTransaction(
          transactionId: "renewal", productId: before.productId.isEmpty ? "pro_monthly" : before.productId,
          purchaseDateMs: start, expiresDateMs: start + length * day))
      // Amazon reports one cancelDate per receipt; a new term replaces one that would fall inside it.
      if let cancel = renewed.renewalInfo?.cancelDateMs, cancel >= start {
        renewed.renewalInfo?.cancelDateMs = nil
      }
      let after = scenario.evaluate(renewed)
      #expect(after.accessEndsAtMs >= before.accessEndsAtMs, "\(scenario)\n\(before) -> \(after)")
      if before.isEntitled { #expect(after.isEntitled, "\(before) -> \(after)") }
    }
  }

  @Test("a refund never extends access")
  func refundNeverExtendsAccess() async {
    await propertyCheck(count: 10000, input: Self.numbers, Gen.int(in: 0...10), Gen.int64(in: 0...90)) {
      numbers, pick, offset in
      let scenario = Scenario(numbers)
      let before = scenario.evaluate()
      var refunded = scenario.history
      let index = pick % refunded.transactions.count
      guard !refunded.transactions[index].isRevoked else { return }
      refunded.transactions[index].revocationDateMs = refunded.transactions[index].purchaseDateMs + offset * day
      refunded.transactions[index].revocationReason = .refunded
      let after = scenario.evaluate(refunded)
      #expect(after.accessEndsAtMs <= before.accessEndsAtMs, "\(scenario)\n\(before) -> \(after)")
      if after.isEntitled { #expect(before.isEntitled, "\(before) -> \(after)") }
    }
  }

  @Test("event order within a batch does not change the result")
  func eventOrderDoesNotMatter() async {
    await propertyCheck(
      count: 500, input: Self.numbers, Gen.int(in: 0...1_000).array(of: 12), Gen.int(in: 0...3).array(of: 12)
    ) { numbers, sortKeys, times in
      let scenario = Scenario(numbers)
      let history = scenario.history
      // One event per transaction snapshot and per renewal-info snapshot, some sharing a time.
      var events: [StoreEvent] = history.transactions.enumerated().map { index, transaction in
        StoreEvent(
          eventId: "e\(index)", store: history.store, purchaseId: history.purchaseId, kind: .renewed,
          occurredAtMs: d(Int64(times[index % times.count])), environment: history.environment,
          transactions: [transaction])
      }
      if let info = history.renewalInfo {
        events.append(
          StoreEvent(
            eventId: "r1", store: history.store, purchaseId: history.purchaseId, kind: .renewalFailed,
            occurredAtMs: d(Int64(times[0])), environment: history.environment, renewalInfo: info))
        var other = info
        other.willAutoRenew.toggle()
        events.append(
          StoreEvent(
            eventId: "r2", store: history.store, purchaseId: history.purchaseId, kind: .autoRenewDisabled,
            occurredAtMs: d(Int64(times[1])), environment: history.environment, renewalInfo: other))
      }
      if let first = history.transactions.first {
        var refundedCopy = first
        refundedCopy.revocationDateMs = first.purchaseDateMs + day
        events.append(
          StoreEvent(
            eventId: "x", store: history.store, purchaseId: history.purchaseId, kind: .refunded,
            occurredAtMs: d(Int64(times[2])), environment: history.environment, transactions: [refundedCopy]))
      }
      let permuted = zip(events, sortKeys + Array(repeating: 0, count: max(0, events.count - sortKeys.count)))
        .sorted { ($0.1, $0.0.eventId) < ($1.1, $1.0.eventId) }.map(\.0)
      let base = SubscriptionHistory(
        store: history.store, purchaseId: history.purchaseId, transactions: [], asOfMs: Int64.min)
      let inOrder = base.applying(events)
      let shuffled = base.applying(permuted)
      let reversed = base.applying(events.reversed())
      #expect(shuffled == inOrder)
      #expect(reversed == inOrder)
      #expect(scenario.evaluate(shuffled) == scenario.evaluate(inOrder))
    }
  }
}
