import Foundation
import Logging
import StoreSimulator
import Synchronization
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Issue 24 through the real path: a purchase the store no longer has stops being asked for, and
/// an Amazon flow logs no receipt id whole.
@Suite("Store answers end to end", .serialized)
struct StoreTrustEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("a receipt past RVS's retention (410): its last state stays, its checks stop, and explain says so")
  func goneStopsChecks() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let purchase = try await stack.local.amazonBuy()
      let response = try await stack.local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "g")
      #expect(response.status == .verified, "\(response.rejectionReason) \(response.error.message)")
      try await stack.settle()
      _ = try await stack.sim.amazonCancel(purchase.receiptId)
      #expect(!(try await stack.until("g") { !$0.active }.active))
      let ended = try #require(
        try await stack.worker.storage.subscription(store: .amazon, purchaseId: purchase.receiptId))
      // Past the simulator's 90-day retention: the next scheduled check meets RVS's 410.
      _ = try await stack.sim.advance(byMs: 120 * Self.day)
      let stopped = try await eventually(timeout: .seconds(10)) {
        try await stack.worker.storage.subscription(store: .amazon, purchaseId: purchase.receiptId)?.evidence
          .checksStopped != nil
      }
      #expect(stopped != nil, "the scheduled checks never stopped")
      let after = try #require(
        try await stack.worker.storage.subscription(store: .amazon, purchaseId: purchase.receiptId))
      #expect(after.nextCheckAtMs == nil)
      #expect(after.state == ended.state && after.history == ended.history)
      #expect(after.evidence.checksStopped?.reason.contains("410") == true)
      #expect(!(try await stack.answer("g").active))
      let explanation = try await WorkerAdmin(
        storage: stack.worker.storage, catalog: stack.local.configuration.catalog, nowMs: stack.local.nowMs
      ).explain(userId: "g", entitlement: "premium")
      #expect(explanation.text.contains("checks stopped: the store no longer has this purchase"), "\(explanation.text)")
    }
  }

  @Test("a 404 storm: a payer verified before keeps access, and an Apple refund's signed notification ends access")
  func notFoundStorm() async throws {
    try await withStack { stack in try await Self.notFoundStorm(stack) }
  }

  static func notFoundStorm(_ stack: Stack) async throws {
    _ = try await stack.buyAndSubmit(userId: "kept")
    let (refunded, _) = try await stack.buyAndSubmit(userId: "refunded")
    try await stack.settle()
    let before = try await stack.answer("kept")
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .notFound, count: nil))
    _ = try await stack.sim.refund(refunded.originalTransactionId)
    let ended = try await stack.until("refunded") { !$0.active }
    #expect(!ended.active, "the refund's signed payload applies")
    // Days of 404s, past the renewal: nobody is cut, no notification is rejected for good.
    for _ in 0..<(33 * 4) {
      _ = try await stack.sim.advance(byMs: 6 * 3_600_000)
      try await Task.sleep(for: .milliseconds(10))
    }
    try await Task.sleep(for: .milliseconds(500))
    let during = try await stack.answer("kept")
    #expect(during.active, "a payer was cut because the store said not found")
    let rejected = try await stack.worker.storage.inboxCounts()["rejected"] ?? 0
    #expect(rejected == 0)
    stack.sim.clearFaults()
    // The renewal (its signed notification may have shown it already) is confirmed by the store.
    let renewedFrom = before.expiresAtMs + 29 * day
    let verifiedDuring = during.verifiedAtMs
    let renewed = try await stack.until("kept", timeout: .seconds(15)) {
      $0.active && $0.expiresAtMs > renewedFrom && $0.verifiedAtMs > verifiedDuring
    }
    #expect(renewed.active && renewed.expiresAtMs > renewedFrom)
    let after = try await stack.answer("refunded")
    #expect(!after.active)
  }

  @Test("an Amazon purchase, renewal, refund and notifications: no log line holds the receipt id whole")
  func logsHoldNoReceiptId() async throws {
    let log = RecordedLines()
    let dir = try TemporaryDirectory(prefix: "tollgate-logs")
    defer { dir.remove() }
    try await LocalStack.run(
      directory: dir.path, logger: Logger(label: "e2e.logs") { _ in RecordedLines.Handler(lines: log) }
    ) { local in
      _ = try await eventually { try local.sim.amazonNotificationEndpoint() == "confirmed" }
      let purchase = try await local.amazonBuy()
      let response = try await local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "logged")
      #expect(response.status == .verified, "\(response.rejectionReason) \(response.error.message)")
      _ = try await local.sim.advance(byMs: 31 * Self.day)
      _ = try await local.until("logged", "premium") { $0.expiresAtMs > local.sim.clockNowMs + 20 * Self.day }
      _ = try await local.sim.amazonRefund(purchase.receiptId)
      _ = try await local.until("logged", "premium") { !$0.active }
      // A receipt RVS refuses (unknown), and one of another user: both logged by the worker.
      _ = try await local.amazonSubmit(receiptId: purchase.receiptId, amazonUserId: "amzn1.account.OTHER", userId: "x")
      #expect(log.count > 0)
      #expect(log.lines.contains { $0.contains(String(purchase.receiptId.prefix(12))) }, "the worker logged the flow")
      let leaks = log.lines.filter { $0.contains(purchase.receiptId) }
      #expect(leaks.isEmpty, "a log line holds the receipt id whole: \(leaks.prefix(3))")
    }
  }
}

/// Every log line, as text with its metadata.
final class RecordedLines: Sendable {
  private let storage = Mutex<[String]>([])
  var lines: [String] { storage.withLock { $0 } }
  var count: Int { storage.withLock { $0.count } }

  struct Handler: LogHandler {
    let lines: RecordedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      lines.storage.withLock { $0.append("\(event.level) \(event.message) \(all)") }
    }
  }
}
