import Foundation
import Testing
import TollgateCore

@Suite("Configuration")
struct ConfigTests {
  @Test func decodesWithDefaults() throws {
    let json = """
      {
        "apps": [{"id": "ios", "store": "app_store", "bundleId": "com.example.app"}],
        "entitlements": [{"id": "pro"}],
        "products": [{"productId": "pro_monthly", "entitlements": ["pro"]}],
        "accessLevels": {"billing_retry": "read_only"}
      }
      """
    let config = try JSONDecoder().decode(ProductCatalog.self, from: Data(json.utf8))
    #expect(config.gracePolicy == GracePolicy(renewalLeewayMs: 86_400_000, honorStoreGracePeriod: true))
    #expect(config.transferPolicy == .keepWithOriginalOwner)
    #expect(config.accessLevels.level(for: .billingRetry) == "read_only")
    #expect(config.accessLevels.level(for: .onHold) == .none)
    #expect(config.apps[0].storeAppId == "com.example.app")
    #expect(config.validate().isEmpty)
    let roundTrip = try JSONDecoder().decode(ProductCatalog.self, from: JSONEncoder().encode(config))
    #expect(roundTrip == config)
  }

  @Test func emptyDocumentIsTheDefault() throws {
    let config = try JSONDecoder().decode(ProductCatalog.self, from: Data("{}".utf8))
    #expect(config == .defaults)
  }

  @Test func unknownStateInAccessLevelsIsRejected() {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(AccessLevelPolicy.self, from: Data(#"{"suspended": "none"}"#.utf8))
    }
  }

  @Test func defaultAccessLevelsFollowTheIssue() {
    let policy = AccessLevelPolicy.defaults
    for state in [SubscriptionState.trial, .introOffer, .active, .gracePeriod] {
      #expect(policy.level(for: state) == .full)
    }
    for state in [SubscriptionState.billingRetry, .onHold, .paused, .expired, .revoked] {
      #expect(policy.level(for: state) == .none)
    }
  }

  @Test func validationListsEveryProblem() {
    let config = ProductCatalog(
      apps: [
        AppConfig(id: "ios", store: .appStore, bundleId: "com.example"),
        AppConfig(id: "ios", store: .googlePlay, packageName: "com.example"),
        AppConfig(id: "fire", store: .amazon),
      ],
      entitlements: [EntitlementDefinition(id: "pro"), EntitlementDefinition(id: "pro")],
      products: [
        ProductConfig(productId: "a", entitlements: ["pro", "ghost"]),
        ProductConfig(productId: "a", entitlements: ["pro"]),
        ProductConfig(productId: "b", entitlements: []),
      ],
      subscriptionGroups: [
        SubscriptionGroup(id: "g1", products: [.init(productId: "a", level: 1), .init(productId: "b", level: 0)]),
        SubscriptionGroup(id: "g2", products: [.init(productId: "a", level: 1), .init(productId: "zzz", level: 2)]),
      ],
      gracePolicy: GracePolicy(renewalLeewayMs: -1))
    let codes = config.validate().map(\.code)
    #expect(codes.contains(.duplicateAppId))
    #expect(codes.contains(.missingStoreAppId))
    #expect(codes.contains(.duplicateEntitlement))
    #expect(codes.contains(.unknownEntitlement))
    #expect(codes.contains(.duplicateProduct))
    #expect(codes.contains(.productWithoutEntitlements))
    #expect(codes.contains(.invalidLevel))
    #expect(codes.contains(.productInTwoGroups))
    #expect(codes.contains(.unknownProduct))
    #expect(codes.contains(.negativeDuration))
    #expect(throws: ConfigValidationError.self) { _ = try config.validated() }
    #expect(config.validate().first { $0.code == .unknownEntitlement }?.message.contains("ghost") == true)
  }

  @Test func storeSpecificProductsWinOverSharedOnes() {
    let config = ProductCatalog(
      entitlements: [EntitlementDefinition(id: "pro"), EntitlementDefinition(id: "extra")],
      products: [
        ProductConfig(productId: "p", entitlements: ["pro"]),
        ProductConfig(productId: "p", store: .amazon, entitlements: ["pro", "extra"]),
      ])
    #expect(config.validate().isEmpty)
    #expect(config.entitlements(forProduct: "p", store: .appStore) == ["pro"])
    #expect(config.entitlements(forProduct: "p", store: .amazon) == ["pro", "extra"])
    #expect(config.entitlements(forProduct: "unknown", store: .amazon).isEmpty)
  }

  @Test(arguments: [
    (TransferPolicy.keepWithOriginalOwner, true, "alice", false),
    (.keepWithOriginalOwner, false, "alice", false),
    (.transferToNewest, true, "bob", true),
    (.transferIfInactive, true, "alice", false),
    (.transferIfInactive, false, "bob", true),
  ])
  func transferPolicy(policy: TransferPolicy, ownerActive: Bool, owner: String, transferred: Bool) {
    let decision = policy.decide(
      purchaseSource: "app_store:1", ownerUserId: "alice", claimantUserId: "bob", ownerHasAccess: ownerActive,
      atMs: d(1))
    #expect(decision.ownerUserId == owner)
    #expect(decision.transferred == transferred)
    #expect(decision.previousOwnerUserId == "alice")
    #expect(decision.policy == policy)
  }
}
