import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TollgateCallers
import TollgateContract
import TollgateHTTPAPI

/// The support and admin routes (design 3.4) against `FakeAdmin`: the request message each one
/// builds from its path, query and body, its status, and the `admin` scope every one needs.
@Suite("HTTP door admin routes")
struct AdminRoutesTests {
  @Test("each admin route builds its request from the path, query and body, as the admin caller")
  func requests() async throws {
    let admin = FakeAdmin()
    let handler = FakeDoorHandler(admin: admin)
    try await DoorTesting.withRouter(handler: handler) { client in
      let ops = DoorTesting.json(DoorTesting.opsKey)
      let user = DoorTesting.segment("a/b c")
      let cases: [(HTTPRequest.Method, String, String?, HTTPResponse.Status)] = [
        (.get, "/v1/lookup?identifier=GPA.1234-5678-9012-34567..2&kind=google_play_order_id", nil, .ok),
        (.get, "/v1/lookup?identifier=MK1&kind=IDENTIFIER_KIND_APP_STORE_ORDER_ID", nil, .ok),
        (.get, "/v1/users/\(user)/timeline", nil, .ok),
        (.get, "/v1/users/\(user)/entitlements/premium/explain", nil, .ok),
        (
          .post, "/v1/users/\(user)/grants",
          #"{"userId":"someone-else","entitlement":"premium","until":"2030-01-01T00:00:00Z","note":"goodwill"}"#,
          .created
        ),
        (.delete, "/v1/users/\(user)/grants/premium?note=sorry%20again&requestedBy=ana", nil, .ok),
        (.post, "/v1/users/\(user)/reverify", nil, .accepted),
        (.delete, "/v1/users/\(user)?dryRun=true", nil, .ok),
        (.delete, "/v1/users/\(user)?requestedBy=ana", nil, .ok),
      ]
      for (method, uri, body, status) in cases {
        let response = try await client.execute(
          uri: uri, method: method, headers: ops, body: body.map { ByteBuffer(string: $0) })
        #expect(response.status == status, "\(method) \(uri): \(String(buffer: response.body))")
        #expect(response.headers[.contentType] == "application/json")
      }
    }
    #expect(
      admin.recorded == [
        #"lookUp {"identifier":"GPA.1234-5678-9012-34567..2","kind":"IDENTIFIER_KIND_GOOGLE_PLAY_ORDER_ID"} ops"#,
        #"lookUp {"identifier":"MK1","kind":"IDENTIFIER_KIND_APP_STORE_ORDER_ID"} ops"#,
        #"getTimeline {"userId":"a/b c"} ops"#,
        #"explain {"userId":"a/b c","entitlement":"premium"} ops"#,
        #"grant {"userId":"a/b c","entitlement":"premium","until":"2030-01-01T00:00:00Z","note":"goodwill"} ops"#,
        #"revoke {"userId":"a/b c","entitlement":"premium","note":"sorry again","requestedBy":"ana"} ops"#,
        #"reverify {"userId":"a/b c"} ops"#,
        #"eraseUser {"userId":"a/b c","dryRun":true} ops"#,
        #"eraseUser {"userId":"a/b c","requestedBy":"ana"} ops"#,
      ])
  }

  @Test("every admin route is refused without the admin scope: 401 without a key, 403 for read and submit keys")
  func adminScope() async throws {
    let admin = FakeAdmin()
    try await DoorTesting.withRouter(handler: FakeDoorHandler(admin: admin)) { client in
      for route in HTTPRoutes.all where route.operation?.requiredScope == .admin {
        let sample = DoorTesting.sample(route)
        for key in [nil, DoorTesting.readerKey, DoorTesting.submitterKey] {
          var headers: HTTPFields = [.contentType: "application/json"]
          if let key { headers[.authorization] = "Bearer \(key)" }
          let response = try await client.execute(
            uri: sample.uri, method: route.method, headers: headers, body: sample.body)
          #expect(response.status == (key == nil ? .unauthorized : .forbidden), "\(route.method) \(route.path)")
          if key != nil {
            let detail = try DoorTesting.object(response.body)["detail"] as? String ?? ""
            #expect(detail.hasSuffix("it needs the admin scope"), "\(detail)")
          }
        }
      }
    }
    #expect(admin.recorded.isEmpty)
  }

  @Test("a replica without an admin handler answers every admin route 503 with Retry-After")
  func noAdmin() async throws {
    try await DoorTesting.withRouter(handler: FakeDoorHandler(admin: nil)) { client in
      for route in HTTPRoutes.all where route.operation?.requiredScope == .admin {
        let sample = DoorTesting.sample(route)
        let response = try await client.execute(
          uri: sample.uri, method: route.method, headers: DoorTesting.json(DoorTesting.opsKey), body: sample.body)
        #expect(response.status == .serviceUnavailable, "\(route.method) \(route.path)")
        #expect(response.headers[.retryAfter] == "1")
        #expect(try DoorTesting.object(response.body)["detail"] as? String == "this replica serves no admin calls")
      }
    }
  }

  @Test("admin errors and bad parameters are problem documents")
  func errors() async throws {
    try await DoorTesting.withRouter { client in
      let ops = DoorTesting.json(DoorTesting.opsKey)
      let cases: [(HTTPRequest.Method, String, String?, HTTPResponse.Status, String)] = [
        (.get, "/v1/lookup", nil, .badRequest, "identifier is missing"),
        (.get, "/v1/lookup?identifier=x&kind=receipt", nil, .badRequest, "is not an identifier kind"),
        (.get, "/v1/lookup?identifier=x&kind=IDENTIFIER_KIND_", nil, .badRequest, "is not an identifier kind"),
        (.get, "/v1/users/nobody/timeline", nil, .notFound, "holds nothing"),
        (.post, "/v1/users/u1/grants", #"{"entitlement":"gold","until":"2030-01-01T00:00:00Z"}"#, .badRequest, "gold"),
        (.post, "/v1/users/u1/grants", #"{"entitlement":"premium","untill":"x"}"#, .badRequest, "unknown field"),
        (.delete, "/v1/users/nobody/grants/premium", nil, .notFound, "holds nothing"),
        (.delete, "/v1/users/u1?dryRun=maybe", nil, .badRequest, "dryRun must be true or false"),
      ]
      for (method, uri, body, status, detail) in cases {
        let response = try await client.execute(
          uri: uri, method: method, headers: ops, body: body.map { ByteBuffer(string: $0) })
        #expect(response.status == status, "\(method) \(uri)")
        #expect(response.headers[.contentType] == "application/problem+json")
        let text = try DoorTesting.object(response.body)["detail"] as? String ?? ""
        #expect(text.contains(detail), "\(method) \(uri): \(text)")
      }
    }
  }
}
