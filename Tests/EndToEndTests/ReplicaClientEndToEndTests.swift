import Foundation
import Synchronization
import Testing
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// Issue 27, "Clients that use replicas": the Swift client, `tollgate query` and `tollgate bench`
/// given two `tollgate serve` processes on one SQLite database. Which replica a call reached is
/// read from the kernel's list of the connections each replica accepted, never from timing.
@Suite("Clients of two serve replicas, as processes", .serialized)
struct ReplicaClientEndToEndTests {
  /// A database where alice is entitled to premium for the next hour, and two replicas on it.
  static func replicas(in dir: TemporaryDirectory) async throws -> (ServeReplica, ServeReplica) {
    let database = dir.file("tollgate.sqlite")
    let expires = SystemClock.nowMs() + 3_600_000
    let storage = try SQLiteEntitlementStorage(path: database, nowMs: 1)
    try await storage.replaceEntitlements(
      userId: "alice", with: [.sample(userId: "alice", state: .active, expiresAtMs: expires)], reason: "seed",
      nowMs: 1)
    let first = try await ServeReplica.start(database: database)
    do {
      return (first, try await ServeReplica.start(database: database))
    } catch {
      await first.stop()
      throw error
    }
  }

  static func client(_ replicas: ServeReplica...) throws -> TollgateClient {
    var config = TollgateClient.Config.defaults
    config.replicaBackoff = .milliseconds(200)
    config.replicaBackoffMax = .milliseconds(400)
    return try TollgateClient(
      endpoints: replicas.map { .tcp(host: "127.0.0.1", port: $0.port) }, config: config)
  }

  static func inboxItems(_ database: String) throws -> Int64 {
    let connection = try Connection(path: database, options: .init(readOnly: true, create: false))
    return try connection.prepare("SELECT COUNT(*) FROM inbox").rows { $0.int64(at: 0) }.first ?? 0
  }

  /// What the lanes of calls counted.
  final class Tally: Sendable {
    let answered = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
  }

  static func submit(_ request: Tollgate_V1_SubmitPurchaseRequest, with client: TollgateClient) async
    -> Result<Tollgate_V1_SubmitPurchaseResponse, TollgateClientError>
  {
    do {
      return .success(try await client.submitPurchase(request, timeout: .seconds(30)))
    } catch let error as TollgateClientError {
      return .failure(error)
    } catch {
      return .failure(TollgateClientError(code: .internalError, message: "\(error)"))
    }
  }

  @Test(
    "a client given two replicas spreads its calls over both, answers every call while one is killed (SIGKILL), and uses it again once it is back"
  )
  func spreadsAndFailsOver() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var (a, b) = try await Self.replicas(in: dir)
    defer { a.process.terminate() }
    defer { b.process.terminate() }
    let client = try Self.client(a, b)
    #expect(a.acceptedConnections == 0 && b.acceptedConnections == 0)

    for _ in 0..<10 { #expect(try await client.isSubscriber(userId: "alice", entitlement: "premium").active) }
    // Both replicas carried calls: the client connects to a replica when a call goes there.
    #expect(a.acceptedConnections == 1, "replica A took no calls")
    #expect(b.acceptedConnections == 1, "replica B took no calls")

    // Two lanes of calls; replica A is killed after the first 40 answers. Every call is answered,
    // those in flight on A included (a read is tried again on B).
    let tally = Tally()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask {
          for _ in 0..<150 {
            do {
              let answer = try await client.isSubscriber(userId: "alice", entitlement: "premium")
              if !answer.active { tally.failures.withLock { $0.append("inactive") } }
            } catch {
              tally.failures.withLock { $0.append("\(error)") }
            }
            tally.answered.add(1, ordering: .relaxed)
          }
        }
      }
      _ = await eventually(timeout: .seconds(20)) { tally.answered.load(ordering: .relaxed) >= 40 }
      await a.kill()
      try await group.waitForAll()
    }
    #expect(tally.failures.withLock { $0 }.isEmpty, "\(tally.failures.withLock { $0 })")
    #expect(a.acceptedConnections == 0)
    #expect(b.acceptedConnections == 1, "B keeps its one connection")

    // `tollgate query` with both servers, the first one dead: B answers.
    let query = try await ChildProcess.runDetached([
      "query", "is-subscriber", "alice", "premium", "--server", a.address, "--server", b.address,
    ])
    #expect(query.status == 0, "\(query.stdout) \(query.stderr)")
    let health = try await ChildProcess.runDetached([
      "query", "health", "--server", a.address, "--server", b.address, "--json",
    ])
    #expect(health.status == 0 && health.stdout.contains("serving"), "\(health.stdout) \(health.stderr)")

    // A comes back on its port: after its back-off the client goes there again.
    a = try await ServeReplica.start(database: dir.file("tollgate.sqlite"), port: a.port)
    let back = try await eventually(timeout: .seconds(20)) {
      #expect(try await client.isSubscriber(userId: "alice", entitlement: "premium").active)
      try await Task.sleep(for: .milliseconds(20))
      return a.acceptedConnections == 1
    }
    #expect(back != nil, "the client never went back to replica A")
    await client.close()
    await a.stop()
    await b.stop()
  }

  @Test(
    "SubmitPurchase goes to the other replica when the first cannot be reached, and is never sent again once a replica may have it"
  )
  func submissionsAreNotRepeated() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (a, b) = try await Self.replicas(in: dir)
    defer { a.process.terminate() }
    defer { b.process.terminate() }
    let database = dir.file("tollgate.sqlite")

    // A submission that waits for verification (no worker runs) is received by A, which is then
    // killed: the client reports the dead connection and B never sees the submission.
    let client = try Self.client(a, b)
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = "bob"
    request.store = .appStore
    request.receipt = "2000000000000001"
    request.waitMs = 20_000
    let submitted = request
    async let outcome = Self.submit(submitted, with: client)
    let stored = try await eventually(timeout: .seconds(20)) { try Self.inboxItems(database) == 1 }
    #expect(stored != nil, "replica A never stored the submission")
    await a.kill()
    switch await outcome {
    case .success(let answer): Issue.record("the submission was answered (\(answer.status)): it was sent again")
    case .failure(let error): #expect(error.code == .connectionClosed, "\(error)")
    }
    #expect(b.acceptedConnections == 0, "the submission went to replica B too")
    #expect(try Self.inboxItems(database) == 1)
    await client.close()

    // A is down before the next submission leaves: it goes to B.
    let second = try Self.client(a, b)
    request.receipt = "2000000000000002"
    request.waitMs = 0
    let answer = try await second.submitPurchase(request)
    #expect(answer.status == .pending)
    #expect(b.acceptedConnections == 1)
    #expect(try Self.inboxItems(database) == 2)
    await second.close()
    await b.stop()
  }

  @Test("tollgate bench given two servers spreads its connections over both")
  func benchSpreadsConnections() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (a, b) = try await Self.replicas(in: dir)
    defer { a.process.terminate() }
    defer { b.process.terminate() }
    let bench = try ChildProcess([
      "bench", "--server", a.address, "--server", b.address, "--connections", "4", "--rate", "200", "--duration",
      "4", "--warmup", "0", "--users", "10", "--json",
    ])
    defer { bench.terminate() }
    // Its connections stay open for the 4 s it runs, however long it took to start.
    let spread = await eventually(timeout: .seconds(20)) { a.acceptedConnections == 2 && b.acceptedConnections == 2 }
    let result = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: bench.finish()) }
    }
    #expect(spread != nil, "connections: A \(a.acceptedConnections), B \(b.acceptedConnections)")
    #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
    #expect(result.stdout.contains("\"additionalServers\""), "\(result.stdout)")
    await a.stop()
    await b.stop()
  }
}
