import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TollgateCallers
import TollgateContract
import TollgateHTTPAPI
import TollgateTesting

/// What the door does with a body: only after the caller is let in, only JSON, only up to the
/// route's limit, and a body that does not decode is refused naming the field.
@Suite("HTTP door bodies")
struct BodyLimitTests {
  @Test("a refused caller's body is never decoded: 401 / 403 even for a body that is not JSON")
  func notReadBeforeAuth() async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let garbage = ByteBuffer(string: "\u{0}not json at all")
      let anonymous = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: [.contentType: "text/plain"], body: garbage)
      #expect(anonymous.status == .unauthorized)
      #expect(anonymous.headers[.connection] == "close", "the rest of the body is not read either")
      let reader = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.readerKey), body: garbage)
      #expect(reader.status == .forbidden)
    }
    #expect(handler.recorded.isEmpty)
  }

  @Test("live: a refusal is answered from the head alone and the connection closed, the body never waited for")
  func refusalClosesLive() async throws {
    // Deadlines far beyond the client's wait: only the refusal can end the connection in time.
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.requestTimeout = .seconds(120)
    config.bodyRateGrace = .seconds(120)
    try await DoorTesting.withLiveDoor(config: config) { port in
      // A head announcing 100 kB, then nothing: the door must not wait for the body.
      let head = SlowHTTPClient.head(
        "POST", "/v1/purchases", headers: ["Content-Type: application/json", "Content-Length: 100000"])
      let outcome = try await SlowHTTPClient.send(port: port, head: head, timeout: .seconds(10))
      #expect(outcome.status == 401, "\(outcome.text.prefix(80))")
      #expect(outcome.closed, "the connection stays open, waiting for a body nobody will read")
      #expect(outcome.text.contains("urn:tollgate:problem:unauthenticated"))
    }
  }

  @Test("a body that is not application/json: 415")
  func unsupportedMediaType() async throws {
    try await DoorTesting.withRouter { client in
      for contentType in [nil, "text/plain", "application/jsonx", "application/x-www-form-urlencoded"] {
        var headers = DoorTesting.bearer(DoorTesting.submitterKey)
        headers[.contentType] = contentType
        let response = try await client.execute(
          uri: "/v1/purchases", method: .post, headers: headers, body: ByteBuffer(string: #"{"userId":"u"}"#))
        #expect(response.status == .unsupportedMediaType, "\(contentType ?? "none")")
        #expect(response.headers[.contentType] == "application/problem+json")
      }
      var headers = DoorTesting.bearer(DoorTesting.submitterKey)
      headers[.contentType] = "Application/JSON; charset=utf-8"
      let accepted = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: headers, body: ByteBuffer(string: #"{"userId":"u"}"#))
      #expect(accepted.status == .accepted)
    }
  }

  @Test("a body over the route's limit: 413")
  func tooLarge() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.maximumPurchaseBodyBytes = 1_024
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler, config: config) { client in
      let big = #"{"userId":"u1","receipt":""# + String(repeating: "A", count: 2_000) + #""}"#
      let response = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.submitterKey),
        body: ByteBuffer(string: big))
      #expect(response.status == .contentTooLarge)
      #expect(try DoorTesting.object(response.body)["type"] as? String == "urn:tollgate:problem:payload-too-large")
      let small = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.submitterKey),
        body: ByteBuffer(string: #"{"userId":"u1","receipt":"abc"}"#))
      #expect(small.status == .accepted)
    }
    #expect(handler.recorded == ["submitPurchase u1 submitter"])
  }

  @Test("live: a body over the limit is answered 413 and the connection closed")
  func tooLargeLive() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.maximumPurchaseBodyBytes = 1_024
    config.requestTimeout = .seconds(120)
    config.bodyRateGrace = .seconds(120)
    try await DoorTesting.withLiveDoor(config: config) { port in
      let head = SlowHTTPClient.head(
        "POST", "/v1/purchases",
        headers: [
          "Authorization: Bearer \(DoorTesting.submitterKey)", "Content-Type: application/json",
          "Content-Length: 5000",
        ])
      let outcome = try await SlowHTTPClient.send(port: port, head: head, timeout: .seconds(10))
      #expect(outcome.status == 413, "\(outcome.text.prefix(80))")
      #expect(outcome.closed)
    }
  }

  @Test(
    "a body that does not decode: 400 naming the field",
    arguments: [
      (#"{"userId":"u1","recipt":"abc"}"#, #"unknown field "recipt""#),
      (#"{"userId":"u1","waitMs":"soon"}"#, #"field "waitMs" does not decode"#),
      (#"{"userId":["u1"]}"#, #"field "userId" does not decode"#),
      (#"{"userId":"u1","waitMs":-1}"#, #"field "waitMs" does not decode"#),
      (#"["u1"]"#, "not a JSON object"),
      (#"{"userId":"u1""#, "not a JSON object"),
    ])
  func undecodable(body: String, detail: String) async throws {
    let handler = FakeDoorHandler()
    try await DoorTesting.withRouter(handler: handler) { client in
      let response = try await client.execute(
        uri: "/v1/purchases", method: .post, headers: DoorTesting.json(DoorTesting.submitterKey),
        body: ByteBuffer(string: body))
      #expect(response.status == .badRequest)
      let problem = try DoorTesting.object(response.body)
      #expect(problem["code"] as? String == "ERROR_CODE_INVALID_ARGUMENT")
      let text = problem["detail"] as? String ?? ""
      #expect(text.contains(detail), "\(text)")
    }
    #expect(handler.recorded.isEmpty)
  }
}
