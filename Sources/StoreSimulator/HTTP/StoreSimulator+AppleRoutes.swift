import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The App Store's own endpoints: the App Store Server API and verifyReceipt, at `/…`
/// (Production) and `/sandbox/…` (Sandbox).
extension StoreSimulator {
  static let historyPageSize = 20

  func addAppleRoutes(to router: Router<SimRequestContext>) {
    for (prefix, environment) in [("", "Production"), ("/sandbox", "Sandbox")] {
      let api: [(String, @Sendable (String, Request, StoreSimulator.AppleApp) -> StoreAnswer)] = [
        ("/inApps/v1/subscriptions/:id", { id, _, app in self.statuses(id, app: app, environment: environment) }),
        (
          "/inApps/v2/history/:id",
          { id, request, app in self.history(id, request, app: app, environment: environment) }
        ),
        ("/inApps/v1/transactions/:id", { id, _, app in self.transactionInfo(id, app: app, environment: environment) }),
        ("/inApps/v1/lookup/:id", { id, _, app in self.orderLookup(id, app: app, environment: environment) }),
        (
          "/inApps/v2/refund/lookup/:id",
          { id, request, app in self.refunds(id, request, app: app, environment: environment) }
        ),
      ]
      for (path, answer) in api {
        router.get(RouterPath(prefix + path)) { request, context in
          await self.storeAnswer("apple.api", request, context) { () async -> StoreAnswer in
            let auth = AppleAPIAuth.check(
              request.headers[.authorization], apps: self.config.apple.apps,
              nowSeconds: NotificationDispatcher.realNowMs() / 1000)
            switch auth {
            case .refused(let reason):
              self.logger.info("App Store API token refused", metadata: ["apple.reason": "\(reason)"])
              return StoreAnswer.appleError(401, 4_010_000, "Unauthenticated")
            case .accepted(let app):
              return answer(context.parameters.get("id") ?? "", request, app)
            }
          }
        }
      }
      router.post(RouterPath(prefix + "/verifyReceipt")) { request, context in
        await self.storeAnswer("apple.verifyReceipt", request, context) { () async -> StoreAnswer in
          await self.verifyReceipt(request, endpointEnvironment: environment)
        }
      }
    }
  }

  // MARK: App Store Server API

  /// The subscription `id` belongs to, if this endpoint and token may see it; else Apple's error.
  private enum Found<Value> {
    case found(Value)
    case answer(StoreAnswer)
  }

  private func lookUp(_ id: String, app: AppleApp, environment: String, in state: State)
    -> Found<AppleSubscription>
  {
    guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
      return .answer(StoreAnswer.appleError(400, 4_000_006, "Invalid transaction id."))
    }
    guard let subscription = state.apple.subscription(containing: id), subscription.bundleId == app.bundleId,
      !config.apple.separateEnvironments || subscription.environment == environment
    else { return .answer(StoreAnswer.appleError(404, 4_040_010, "Transaction id not found.")) }
    return .found(subscription)
  }

  /// Get All Subscription Statuses: the statuses of the customer's auto-renewable
  /// subscriptions. A known id that is no subscription's (a non-consumable's) is still the
  /// customer's, so it answers 200; the simulator has no customers, so `data` is empty.
  private func statuses(_ id: String, app: AppleApp, environment: String) -> StoreAnswer {
    struct Item: Encodable {
      var status: Int
      var originalTransactionId: String
      var signedTransactionInfo: String
      var signedRenewalInfo: String
    }
    struct Group: Encodable {
      var subscriptionGroupIdentifier: String
      var lastTransactions: [Item]
    }
    struct Body: Encodable {
      var environment: String
      var bundleId: String
      var appAppleId: Int64
      var data: [Group]
    }
    return state.withLock { state in
      switch lookUp(id, app: app, environment: environment, in: state) {
      case .answer(let error): return error
      case .found(let subscription) where subscription.type != .autoRenewable:
        return StoreAnswer.json(
          Body(environment: subscription.environment, bundleId: app.bundleId, appAppleId: app.appAppleId, data: []))
      case .found(let subscription):
        let now = state.core.nowMs
        guard let latest = state.apple.latestTransaction(subscription) else {
          return StoreAnswer.appleError(404, 4_040_010, "Transaction id not found.")
        }
        let item = Item(
          status: subscription.state.status, originalTransactionId: subscription.originalTransactionId,
          signedTransactionInfo: state.apple.signedTransaction(latest, nowMs: now),
          signedRenewalInfo: state.apple.signedRenewalInfo(subscription, nowMs: now))
        return StoreAnswer.json(
          Body(
            environment: subscription.environment, bundleId: app.bundleId, appAppleId: app.appAppleId,
            data: [Group(subscriptionGroupIdentifier: subscription.groupId, lastTransactions: [item])]))
      }
    }
  }

  private struct Page: Encodable {
    var revision: String
    var hasMore: Bool
    var bundleId: String?
    var appAppleId: Int64?
    var environment: String?
    var signedTransactions: [String]
  }

  /// One page of `transactions` from the `revision` query parameter (an opaque offset).
  private func page(_ transactions: [AppleTransaction], _ request: Request, nowMs: Int64, state: State) -> Found<Page> {
    let revision = request.uri.queryParameters.get("revision")
    guard let start = revision.map({ Int($0) }) ?? 0, start >= 0, start <= transactions.count else {
      return .answer(StoreAnswer.appleError(400, 4_000_005, "Invalid revision."))
    }
    let end = min(start + Self.historyPageSize, transactions.count)
    let signed = transactions[start..<end].map { state.apple.signedTransaction($0, nowMs: nowMs) }
    return .found(Page(revision: String(end), hasMore: end < transactions.count, signedTransactions: signed))
  }

  private func history(_ id: String, _ request: Request, app: AppleApp, environment: String) -> StoreAnswer {
    state.withLock { state in
      switch lookUp(id, app: app, environment: environment, in: state) {
      case .answer(let error): return error
      case .found(let subscription):
        var chain = state.apple.chain(subscription).sorted {
          ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId)
        }
        if request.uri.queryParameters.get("sort") == "DESCENDING" { chain.reverse() }
        switch page(chain, request, nowMs: state.core.nowMs, state: state) {
        case .answer(let error): return error
        case .found(var page):
          page.bundleId = app.bundleId
          page.appAppleId = app.appAppleId
          page.environment = subscription.environment
          return StoreAnswer.json(page)
        }
      }
    }
  }

  private func transactionInfo(_ id: String, app: AppleApp, environment: String) -> StoreAnswer {
    struct Body: Encodable { var signedTransactionInfo: String }
    return state.withLock { state in
      switch lookUp(id, app: app, environment: environment, in: state) {
      case .answer(let error): return error
      case .found:
        guard let transaction = state.apple.transactions[id] else {
          return StoreAnswer.appleError(404, 4_040_010, "Transaction id not found.")
        }
        return StoreAnswer.json(
          Body(signedTransactionInfo: state.apple.signedTransaction(transaction, nowMs: state.core.nowMs)))
      }
    }
  }

  private func orderLookup(_ orderId: String, app: AppleApp, environment: String) -> StoreAnswer {
    struct Body: Encodable {
      var status: Int
      var signedTransactions: [String]
    }
    return state.withLock { state in
      let transactions = (state.apple.orders[orderId] ?? []).compactMap { state.apple.transactions[$0] }.filter {
        $0.bundleId == app.bundleId && (!config.apple.separateEnvironments || $0.environment == environment)
      }
      let signed = transactions.map { state.apple.signedTransaction($0, nowMs: state.core.nowMs) }
      return StoreAnswer.json(Body(status: signed.isEmpty ? 1 : 0, signedTransactions: signed))
    }
  }

  private func refunds(_ id: String, _ request: Request, app: AppleApp, environment: String) -> StoreAnswer {
    state.withLock { state in
      switch lookUp(id, app: app, environment: environment, in: state) {
      case .answer(let error): return error
      case .found(let subscription):
        let refunded = state.apple.chain(subscription).filter { $0.revocationType == "REFUND_FULL" }
        switch page(refunded, request, nowMs: state.core.nowMs, state: state) {
        case .answer(let error): return error
        case .found(let page): return StoreAnswer.json(page)
        }
      }
    }
  }
}
