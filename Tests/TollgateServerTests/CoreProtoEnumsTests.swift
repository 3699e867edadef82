import SwiftProtobuf
import Testing
import TollgateContract
import TollgateCore
import TollgateServer

/// TollgateServer's one Core → proto mapping of the store, environment and subscription state,
/// used by the service's answers and the support desk's: each Core case is the proto value of the
/// same name (`app_store` → `STORE_APP_STORE`), as the proto3 JSON mapping writes it.
@Suite("Core enums as proto/tollgate.proto's")
struct CoreProtoEnumsTests {
  static func json(_ fill: (inout Tollgate_V1_EntitlementStatus) -> Void) throws -> String {
    var status = Tollgate_V1_EntitlementStatus()
    fill(&status)
    return try status.jsonString()
  }

  @Test("stores, both ways", arguments: Store.allCases)
  func store(_ store: Store) throws {
    let proto = Tollgate_V1_Store(store)
    #expect(try Self.json { $0.store = proto } == "{\"store\":\"STORE_\(store.rawValue.uppercased())\"}")
    #expect(proto.core == store)
  }

  @Test("no Core store for unspecified or a value this build does not know")
  func unknownStore() {
    #expect(Tollgate_V1_Store.unspecified.core == nil)
    #expect(Tollgate_V1_Store.UNRECOGNIZED(42).core == nil)
  }

  @Test("environments", arguments: StoreEnvironment.allCases)
  func environment(_ environment: StoreEnvironment) throws {
    let json = try Self.json { $0.environment = .init(environment) }
    #expect(json == "{\"environment\":\"ENVIRONMENT_\(environment.rawValue.uppercased())\"}")
  }

  @Test("subscription states", arguments: SubscriptionState.allCases)
  func state(_ state: SubscriptionState) throws {
    let json = try Self.json { $0.state = .init(state) }
    #expect(json == "{\"state\":\"SUBSCRIPTION_STATE_\(state.rawValue.uppercased())\"}")
  }
}
