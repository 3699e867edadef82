import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// Issue 25 item 6, through `tollgate serve` and `tollgate worker` as processes over real sockets:
/// one `submit` key could lock a user out of their own purchase for an hour (twenty bogus
/// submissions filled the user's pending limit), and could write tens of MB a second of made-up
/// evidence into the inbox.
@Suite("SubmitPurchase limits per caller, as processes", .serialized)
struct SubmissionLimitsEndToEndTests {
  static let attackerKey = "tgk_attacker_0123456789abcdef"
  static let backendKey = "tgk_backend_fedcba9876543210"

  static func callers() -> [[String: Any]] {
    [
      ["name": "attacker", "keySha256": ServeAccessEndToEndTests.hex(attackerKey), "scopes": ["submit"]],
      ["name": "backend", "keySha256": ServeAccessEndToEndTests.hex(backendKey), "scopes": ["read", "submit"]],
    ]
  }

  static func appStore(_ userId: String, receipt: String) -> Tollgate_V1_SubmitPurchaseRequest {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = userId
    request.store = .appStore
    request.receipt = receipt
    return request
  }

  /// The error code SubmitPurchase answered with, or nil when it took the submission.
  static func refusal(_ client: TollgateClient, _ request: Tollgate_V1_SubmitPurchaseRequest) async throws
    -> TollgateClientError.Code?
  {
    do {
      let response = try await client.submitPurchase(request)
      #expect(response.status == .pending)
      return nil
    } catch let error as TollgateClientError {
      return error.code
    }
  }

  @Test(
    "twenty bogus submissions from one caller for a user do not stop the backend's real one, which entitles the user")
  func bogusSubmissionsDoNotLockTheUserOut() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-submit-limits")
    do {
      try await Self.bogusSubmissions(workers)
    } catch {
      await workers.remove()
      throw error
    }
    await workers.remove()
  }

  static func bogusSubmissions(_ workers: WorkerProcesses) async throws {
    let serve = try await ServeAccessEndToEndTests.serve(
      ["listen": "127.0.0.1:0", "database": workers.database, "callers": Self.callers()], in: workers.dir)
    defer { serve.process.terminate() }
    let worker = try await workers.start().process
    defer { worker.terminate() }
    let attacker = try ServeAccessEndToEndTests.client(serve.tcp, caller: "attacker", key: Self.attackerKey)
    let backend = try ServeAccessEndToEndTests.client(serve.tcp, caller: "backend", key: Self.backendKey)

    // Transaction ids the store does not know: the worker asks, hears "not found", and keeps them
    // pending for its not-found window (an hour by default).
    var bogusIds: [String] = []
    for number in 0..<20 {
      let submitted = try await attacker.submitPurchase(Self.appStore("victim", receipt: "31000000000\(number)"))
      bogusIds.append(submitted.submissionID)
    }
    #expect(try await Self.refusal(attacker, Self.appStore("victim", receipt: "310000000099")) == .resourceExhausted)
    #expect(try await attacker.getSubmission(submissionId: bogusIds[19]).status == .pending)

    // The app's backend submits the victim's real purchase: taken, verified, and the victim is in.
    let purchase = try await workers.sim.purchase(
      .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
    let real = try await backend.submitPurchase(Self.appStore("victim", receipt: purchase.signedTransaction))
    #expect(real.status == .pending || real.status == .verified)
    let verified = await eventually(timeout: .seconds(20)) {
      (try? await backend.getSubmission(submissionId: real.submissionID).status) == .verified
    }
    #expect(verified != nil, "the backend's real submission was never verified")
    let entitled = await eventually(timeout: .seconds(10)) {
      (try? await backend.isSubscriber(userId: "victim", entitlement: "premium").active) == true
    }
    #expect(entitled != nil, "the victim is not entitled to their purchase")

    // A caller at its limit for a user may still submit a signed transaction for that user.
    let second = try await workers.sim.purchase(
      .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
    let signed = try await attacker.submitPurchase(Self.appStore("victim", receipt: second.signedTransaction))
    let signedVerified = await eventually(timeout: .seconds(20)) {
      (try? await attacker.getSubmission(submissionId: signed.submissionID).status) == .verified
    }
    #expect(signedVerified != nil, "a signed submission at the caller's limit was never verified")
    // The bogus ones are still pending: the allowance was full all along.
    #expect(try await attacker.getSubmission(submissionId: bogusIds[0]).status == .pending)

    await attacker.close()
    await backend.close()
    worker.terminate()
    _ = worker.finish()
    serve.process.terminate()
    _ = serve.process.finish()
  }

  @Test("a field longer than its store makes it is INVALID_ARGUMENT; a caller's bytes per minute hold")
  func oversizedAndByteBudget() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-submit-bytes")
    defer { dir.remove() }
    let budget = 1 << 20
    let serve = try await ServeAccessEndToEndTests.serve(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "callers": Self.callers(),
        "submitBytesPerMinutePerCaller": budget,
      ], in: dir)
    defer { serve.process.terminate() }
    let attacker = try ServeAccessEndToEndTests.client(serve.tcp, caller: "attacker", key: Self.attackerKey)
    let backend = try ServeAccessEndToEndTests.client(serve.tcp, caller: "backend", key: Self.backendKey)

    // Every field no longer than its store makes it.
    var amazon = Tollgate_V1_SubmitPurchaseRequest()
    amazon.userID = "u"
    amazon.store = .amazon
    amazon.receiptID = String(repeating: "r", count: 100_000)
    amazon.amazonUserID = "amzn1.account.A"
    #expect(try await Self.refusal(attacker, amazon) == .invalidArgument)
    var google = Tollgate_V1_SubmitPurchaseRequest()
    google.userID = "u"
    google.store = .googlePlay
    google.productID = Stack.premium
    google.purchaseToken = String(repeating: "t", count: 100_000)
    #expect(try await Self.refusal(attacker, google) == .invalidArgument)
    let longJWS = ["eyJhbGciOiJFUzI1NiJ9", String(repeating: "A", count: 100_000), "c2ln"].joined(separator: ".")
    #expect(try await Self.refusal(attacker, Self.appStore("u", receipt: longJWS)) == .invalidArgument)

    // App receipts may be long; a caller's bytes per minute are bounded, another caller's are its own.
    let receipt = String(repeating: "M", count: 250_000)
    var taken = 0
    for user in 0..<6 {
      if try await Self.refusal(attacker, Self.appStore("user-\(user)", receipt: receipt)) == nil { taken += 1 }
    }
    #expect(taken == 4)
    #expect(try await Self.refusal(attacker, Self.appStore("user-9", receipt: receipt)) == .resourceExhausted)
    #expect(try await Self.refusal(backend, Self.appStore("user-9", receipt: receipt)) == nil)

    // What the attacker's key wrote into the inbox stays within its budget.
    let db = try Connection(path: dir.file("tollgate.sqlite"))
    let statement = try db.prepare(
      "SELECT COUNT(*), COALESCE(SUM(length(payload)), 0) FROM inbox WHERE kind = 'purchase' AND caller = 'attacker'")
    #expect(try statement.step())
    #expect(statement.int64(at: 0) == 4)
    #expect(statement.int64(at: 1) <= Int64(budget) + 4 * 512)

    await attacker.close()
    await backend.close()
    serve.process.terminate()
    _ = serve.process.finish()
  }
}
