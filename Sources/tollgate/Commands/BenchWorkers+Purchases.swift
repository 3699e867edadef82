import Foundation
import StoreSimulator
import TollgateContract

/// Buys subscriptions at a running store simulator over its control API and makes the
/// SubmitPurchase each user's app would send (as Tests/EndToEndTests/Deployment/DeployedPurchases.swift
/// does in-process).
struct WorkersPurchaser: Sendable {
  var control: StoreSimulatorControlClient
  var product: String
  var bundleId: String
  var packageName: String
  var amazonApp: String

  struct Refused: Error, CustomStringConvertible {
    var request: String
    var status: Int
    var body: String
    var description: String { "\(request) answered \(status): \(body)" }
  }

  struct Unreachable: Error, CustomStringConvertible {
    var seconds: Int
    var description: String { "the store simulator did not answer GET /sim/clock within \(seconds) s" }
  }

  /// Asks the simulator its clock, giving up after `seconds` (the HTTP client alone would keep
  /// trying to connect to a simulator that is not there for as long as a purchase may take).
  func checkReachable(seconds: Int = 5) async throws {
    let answer = try await withThrowingTaskGroup(of: StoreSimulatorControlClient.Answer?.self) { group in
      group.addTask { try await control.clock() }
      group.addTask {
        try await Task.sleep(for: .seconds(seconds))
        return nil
      }
      defer { group.cancelAll() }
      return try await group.next() ?? nil
    }
    guard let answer else { throw Unreachable(seconds: seconds) }
    guard answer.isSuccess else {
      throw Refused(request: "GET /sim/clock", status: answer.status, body: String(answer.body.prefix(300)))
    }
  }

  /// `count` purchases, `concurrency` at a time, for `userPrefix0` … in order: at `store`, or at
  /// the three stores in turn when it is nil.
  func buy(_ count: Int, userPrefix: String, concurrency: Int, at store: Tollgate_V1_Store? = nil) async throws
    -> [Tollgate_V1_SubmitPurchaseRequest]
  {
    try await withThrowingTaskGroup(of: (Int, Tollgate_V1_SubmitPurchaseRequest).self) { group in
      var bought = [Tollgate_V1_SubmitPurchaseRequest?](repeating: nil, count: count)
      for index in 0..<count {
        if index >= concurrency, let (done, request) = try await group.next() { bought[done] = request }
        let user = userPrefix + String(index)
        group.addTask { (index, try await buy(at: store ?? Self.stores[index % 3], user: user)) }
      }
      for try await (done, request) in group { bought[done] = request }
      return bought.compactMap { $0 }
    }
  }

  /// The stores `buy(_:userPrefix:concurrency:at:)` takes in turn.
  static let stores: [Tollgate_V1_Store] = [.appStore, .googlePlay, .amazon]

  /// One purchase at `store` for `user` (`tollgate bench worker` buys at one store at a time).
  func buy(at store: Tollgate_V1_Store, user: String) async throws -> Tollgate_V1_SubmitPurchaseRequest {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = user
    request.waitMs = 0
    switch store {
    case .appStore:
      let purchase = try await decode(
        ApplePurchaseResult.self, "App Store purchase",
        control.send(
          "POST", "/sim/apple/purchases",
          json: ["productId": product, "bundleId": bundleId, "environment": "Sandbox"]))
      request.store = .appStore
      request.receipt = purchase.signedTransaction
    case .googlePlay:
      let purchase = try await decode(
        GooglePurchaseResult.self, "Google Play purchase",
        control.googlePurchase(.init(productId: product, packageName: packageName, acknowledged: true)))
      request.store = .googlePlay
      request.purchaseToken = purchase.purchaseToken
      request.productID = product
    default:
      let purchase = try await decode(
        AmazonPurchaseResult.self, "Amazon purchase",
        control.amazonPurchase(.init(sku: product, appPackageName: amazonApp)))
      request.store = .amazon
      request.receiptID = purchase.receiptId
      request.amazonUserID = purchase.userId
      request.appID = amazonApp
    }
    return request
  }

  private func decode<T: Decodable>(_ type: T.Type, _ what: String, _ answer: StoreSimulatorControlClient.Answer)
    throws -> T
  {
    guard answer.isSuccess else {
      throw Refused(request: what, status: answer.status, body: String(answer.body.prefix(300)))
    }
    return try JSONDecoder().decode(type, from: Data(answer.body.utf8))
  }
}
