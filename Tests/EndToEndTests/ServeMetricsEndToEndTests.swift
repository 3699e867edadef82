import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Testing
import TollgateClient
import TollgateContract
import TollgateGRPC
import TollgateTesting

#if canImport(Glibc)
  import Glibc
#endif

/// `serve`'s admin listener as a process (issue 29): calls on each door, then `/metrics` shows
/// them by door, method and outcome with their histograms, and the refused connections and
/// authentication failures; `/livez`, and `/readyz` 503 naming what is not ready.
@Suite("tollgate serve: metrics, liveness and readiness on the admin listener", .serialized)
struct ServeMetricsEndToEndTests {
  static let readerKey = "tgk_metrics_reader_0123456789abcdef"

  @Test("calls on the fast port, gRPC and HTTP are counted by door, method and outcome, with refusals and failures")
  func countedOnEveryDoor() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-serve-metrics")
    defer { dir.remove() }
    let serve = try await HTTPDoorEndToEndTests.serve(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "adminListen": "127.0.0.1:0",
        "callers": [["name": "reader", "keySha256": ServeAccessEndToEndTests.hex(Self.readerKey), "scopes": ["read"]]],
        "grpc": ["listen": "127.0.0.1:0"], "http": ["listen": "127.0.0.1:0"], "maxConnections": 4,
      ], in: dir)
    defer { serve.process.terminate() }
    // The admin listener comes last in the listening line.
    let admin = try #require(HTTPDoorEndToEndTests.door("admin", in: serve.line), "no admin: in \(serve.line)")
    #expect(serve.line.contains(" and admin:\(admin), database "), "\(serve.line)")
    let scrape = DoorHTTP(address: admin)
    #expect(try await scrape.call(.get, "/livez", key: nil).status == 200)
    let ready = try await scrape.call(.get, "/readyz", key: nil)
    #expect(ready.status == 200, "\(ready.body)")
    #expect(ready.body.contains(#""status":"ready""#))
    #expect(try await scrape.call(.get, "/v1/health", key: nil).status == 404)

    // The fast port: 20 IsSubscriber, one GetSubscription of nobody, a wrong key.
    let fast = try ServeAccessEndToEndTests.client(serve.tcp, caller: "reader", key: Self.readerKey)
    for index in 0..<20 { _ = try await fast.isSubscriber(userId: "user-\(index)", entitlement: "premium") }
    await #expect(throws: TollgateClientError.self) { _ = try await fast.getSubscription(userId: "nobody") }
    let stranger = try ServeAccessEndToEndTests.client(serve.tcp, caller: "reader", key: "tgk_wrong")
    await #expect(throws: (any Error).self) { _ = try await stranger.isSubscriber(userId: "u", entitlement: "e") }
    await stranger.close()

    // HTTP: 3 answered, one without a key.
    let http = DoorHTTP(address: try #require(HTTPDoorEndToEndTests.door("http", in: serve.line)))
    for _ in 0..<3 {
      #expect(try await http.call(.get, "/v1/users/u/entitlements/premium", key: Self.readerKey).status == 200)
    }
    #expect(try await http.call(.get, "/v1/users/u/entitlements/premium", key: nil).status == 401)

    // gRPC: 2 answered.
    let grpcAddress = try #require(HTTPDoorEndToEndTests.door("grpc", in: serve.line))
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: try #require(Int(grpcAddress.split(separator: ":").last ?? ""))),
      transportSecurity: .plaintext)
    try await withGRPCClient(transport: transport) { grpc in
      let client = Tollgate_V1_Entitlements.Client(wrapping: grpc)
      var request = Tollgate_V1_IsSubscriberRequest()
      request.userID = "u"
      request.entitlement = "premium"
      for _ in 0..<2 {
        _ = try await client.isSubscriber(request, metadata: ["authorization": "Bearer \(Self.readerKey)"])
      }
    }

    // Connections that never authenticate, past service.maxConnections (4): the fast port makes
    // room by closing unproven ones, or refuses.
    var strangers: [RawConnection] = []
    for _ in 0..<8 { strangers.append(try await RawConnection.connect(port: Self.port(serve.tcp))) }
    var metrics: [String: Double] = [:]
    let refusedSeen = try await eventually(timeout: .seconds(10)) {
      metrics = try await Self.metrics(scrape)
      let refused = metrics.filter { $0.key.hasPrefix(#"tollgate_connections_refused_total{door="fast""#) }
      return refused.values.reduce(0, +) >= 1
    }
    #expect(refusedSeen != nil, "no connection refused on the fast port")
    for connection in strangers { try? await connection.close() }

    func value(_ sample: String) -> Double? { metrics[sample] }
    let fastIs = #"door="fast",method="IsSubscriber""#
    #expect(value(#"tollgate_requests_total{\#(fastIs),outcome="ok"}"#) == 20)
    #expect(value(#"tollgate_request_duration_seconds_count{\#(fastIs)}"#) == 20)
    #expect(value(#"tollgate_request_duration_seconds_bucket{\#(fastIs),le="+Inf"}"#) == 20)
    #expect((value(#"tollgate_request_duration_seconds_sum{\#(fastIs)}"#) ?? 0) > 0)
    #expect(value(#"tollgate_requests_total{door="fast",method="GetSubscription",outcome="not_found"}"#) == 1)
    #expect(value(#"tollgate_requests_total{door="fast",method="Authenticate",outcome="unauthenticated"}"#) == 1)
    #expect(value(#"tollgate_authentication_failures_total{door="fast"}"#) == 1)
    #expect(value(#"tollgate_requests_total{door="http",method="IsSubscriber",outcome="ok"}"#) == 3)
    #expect(value(#"tollgate_requests_total{door="http",method="IsSubscriber",outcome="unauthenticated"}"#) == 1)
    #expect(value(#"tollgate_request_duration_seconds_count{door="http",method="IsSubscriber"}"#) == 4)
    #expect(value(#"tollgate_authentication_failures_total{door="http"}"#) == 1)
    #expect(value(#"tollgate_requests_total{door="grpc",method="IsSubscriber",outcome="ok"}"#) == 2)
    #expect(value(#"tollgate_request_duration_seconds_count{door="grpc",method="IsSubscriber"}"#) == 2)
    #expect(value(#"tollgate_authentication_failures_total{door="grpc"}"#) == 0)
    #expect(value(#"tollgate_submissions_limited_total{door="fast"}"#) == 0)
    #expect(value("tollgate_index_users") == 0)
    #expect(value("tollgate_change_feed_lag_seconds") != nil)
    #expect(value(#"tollgate_connections_open{door="http"}"#) != nil)
    #expect(metrics.keys.contains { $0.hasPrefix("tollgate_build_info{") })
    await fast.close()
  }

  @Test("/readyz is 503 naming the storage once the database file is deleted; /livez stays 200")
  func storageNotTrusted() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-serve-readyz")
    defer { dir.remove() }
    let database = dir.file("tollgate.sqlite")
    let process = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", database, "--create", "--admin-listen", "127.0.0.1:0",
      "--log-level", "error",
    ])
    defer { process.terminate() }
    let line = try #require(await process.waitForLine(containing: "listening on"), "serve did not start")
    let scrape = DoorHTTP(address: try #require(HTTPDoorEndToEndTests.door("admin", in: line)))
    #expect(try await scrape.call(.get, "/readyz", key: nil).status == 200)

    try FileManager.default.removeItem(atPath: database)
    var body = ""
    let refused = try await eventually(timeout: .seconds(10)) {
      let answer = try await scrape.call(.get, "/readyz", key: nil)
      body = answer.body
      return answer.status == 503
    }
    #expect(refused != nil, "/readyz never said 503: \(body)")
    #expect(body.contains(#""notReady":["storage"]"#), "\(body)")
    #expect(body.contains(#""status":"not_ready""#), "\(body)")
    #expect(try await scrape.call(.get, "/livez", key: nil).status == 200)
    let health = try await scrape.call(.get, "/health", key: nil)
    #expect(health.status == 503 && health.body.contains(#""status":"not_serving""#), "\(health.body)")
  }

  @Test("/readyz is 503 naming the index while PostgreSQL cannot be reached, 200 once it loads")
  func notLoadedUntilStorageAnswers() async throws {
    let database = try await TestPostgres.freshDatabase().description
    // The server's socket appears (a link to it) in the directory serve is given only later, as
    // in PostgresEndToEndTests.serveWaitsForTheServer.
    let query = try #require(database.split(separator: "?").last).split(separator: "&")
    let host = try #require(query.first { $0.hasPrefix("host=") }?.dropFirst("host=".count))
    let port = try #require(query.first { $0.hasPrefix("port=") }?.dropFirst("port=".count))
    let dir = try TemporaryDirectory(prefix: "tollgate-readyz-later")
    defer { dir.remove() }
    let later = database.replacingOccurrences(of: "host=\(host)&", with: "host=\(dir.path)&")
    let process = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", later, "--create", "--admin-listen", "127.0.0.1:0",
      "--log-level", "error",
    ])
    defer { process.terminate() }
    let line = try #require(await process.waitForLine(containing: "listening on"), "serve did not start")
    let scrape = DoorHTTP(address: try #require(HTTPDoorEndToEndTests.door("admin", in: line)))
    let waiting = try await scrape.call(.get, "/readyz", key: nil)
    #expect(waiting.status == 503, "\(waiting.body)")
    #expect(waiting.body.contains(#""notReady":["index"]"#), "\(waiting.body)")
    #expect(try await scrape.call(.get, "/livez", key: nil).status == 200)

    try FileManager.default.createSymbolicLink(
      atPath: dir.file(".s.PGSQL.\(port)"), withDestinationPath: "\(host)/.s.PGSQL.\(port)")
    let loaded = try await eventually(timeout: .seconds(15)) {
      try await scrape.call(.get, "/readyz", key: nil).status == 200
    }
    #expect(loaded != nil, "/readyz never said 200 once PostgreSQL answered")
  }

  static func port(_ address: String) throws -> Int {
    try #require(Int(address.split(separator: ":").last ?? ""))
  }

  /// `/metrics` as `name{labels}` → value; checks the content type.
  static func metrics(_ scrape: DoorHTTP) async throws -> [String: Double] {
    let answer = try await scrape.call(.get, "/metrics", key: nil)
    #expect(answer.status == 200)
    #expect(answer.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
    var samples: [String: Double] = [:]
    for line in answer.body.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
        continue
      }
      samples[String(line[..<space])] = value
    }
    return samples
  }
}
