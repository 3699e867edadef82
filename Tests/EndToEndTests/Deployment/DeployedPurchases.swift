import Foundation
import StoreSimulator
import TollgateClient
import TollgateContract
import TollgateCore
import TollgateTesting

/// A purchase the deployment test made at a simulated store, for a user of its own, and the
/// SubmitPurchase that tells Tollgate of it.
struct DeployedPurchase: Sendable {
  var chain: BoughtChain
  var request: Tollgate_V1_SubmitPurchaseRequest
  var user: String { chain.user }
}

extension PostgresDeployment {
  /// Buys a monthly subscription at the store `index` picks (App Store, Google Play, Amazon in
  /// turn) for `user-<index>`.
  func buy(_ index: Int) async throws -> DeployedPurchase {
    let user = "user-\(index)"
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = user
    switch index % 3 {
    case 0:
      let purchase = try await sim.purchase(
        .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
      request.store = .appStore
      request.receipt = purchase.signedTransaction
      return DeployedPurchase(
        chain: BoughtChain(user: user, store: .appStore, purchaseId: purchase.originalTransactionId), request: request)
    case 1:
      let purchase = try await sim.googlePurchase(.init(productId: Stack.premium, acknowledged: true))
      request.store = .googlePlay
      request.purchaseToken = purchase.purchaseToken
      request.productID = Stack.premium
      return DeployedPurchase(
        chain: BoughtChain(user: user, store: .googlePlay, purchaseId: purchase.purchaseToken), request: request)
    default:
      let purchase = try await sim.amazonPurchase(.init(sku: Stack.premium, appPackageName: Self.amazonApp))
      request.store = .amazon
      request.receiptID = purchase.receiptId
      request.amazonUserID = purchase.userId
      request.appID = Self.amazonApp
      return DeployedPurchase(
        chain: BoughtChain(user: user, store: .amazon, purchaseId: purchase.receiptId), request: request)
    }
  }

  /// Submits `purchases` through `client` (the replicas), a few at a time, without waiting for
  /// verification. A submission the service did not acknowledge (no id: the database was down,
  /// the replica died) is tried again until it is, as an app would.
  func submit(_ purchases: [DeployedPurchase], through client: TollgateClient, timeout: Duration = .seconds(60))
    async throws
  {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (position, purchase) in purchases.enumerated() {
        if position >= 8 { try await group.next() }
        group.addTask {
          let deadline = ContinuousClock.now + timeout
          while true {
            if let response = try? await client.submitPurchase(purchase.request, timeout: .seconds(5)),
              !response.submissionID.isEmpty
            {
              return
            }
            guard ContinuousClock.now < deadline else { throw NotAcknowledged(user: purchase.user) }
            try await Task.sleep(for: .milliseconds(200))
          }
        }
      }
      try await group.waitForAll()
    }
  }

  /// The users of `purchases` whom `client` answers entitled to `premium` now.
  func entitled(_ purchases: [DeployedPurchase], by client: TollgateClient) async -> Set<String> {
    var users: Set<String> = []
    for purchase in purchases {
      if (try? await client.isSubscriber(userId: purchase.user, entitlement: "premium"))?.active == true {
        users.insert(purchase.user)
      }
    }
    return users
  }

  /// Waits until `client` answers every user of `purchases` entitled; returns who is not.
  func awaitEntitled(_ purchases: [DeployedPurchase], by client: TollgateClient, timeout: Duration = .seconds(90))
    async -> [String]
  {
    var missing: [String] = []
    _ = await eventually(timeout: timeout) {
      let entitled = await entitled(purchases, by: client)
      missing = purchases.map(\.user).filter { !entitled.contains($0) }
      return missing.isEmpty
    }
    return missing
  }

  struct NotAcknowledged: Error, CustomStringConvertible {
    var user: String
    var description: String { "the submission for \(user) was never acknowledged" }
  }
}
