import TollgateCore

/// The configured gateways, by store and by notification route: how the worker picks the one an
/// item needs, without knowing which stores there are.
public struct StoreGateways: Sendable {
  private let byStore: [Store: any StoreGateway]
  private let byRoute: [String: any StoreGateway]

  /// - Precondition: one gateway per store, one gateway per route name.
  public init(_ gateways: [any StoreGateway]) {
    byStore = Dictionary(gateways.map { ($0.store, $0) }) { _, _ in preconditionFailure("two gateways for one store") }
    byRoute = Dictionary(gateways.flatMap { gateway in gateway.notificationRoutes.map { ($0.name, gateway) } }) {
      _, _ in
      preconditionFailure("two gateways for one notification route")
    }
  }

  public subscript(store: Store) -> (any StoreGateway)? { byStore[store] }

  /// The gateway whose notifications are stored under `route`.
  public func gateway(route: String) -> (any StoreGateway)? { byRoute[route] }

  /// Every gateway, in `stores` order.
  public var all: [any StoreGateway] { stores.compactMap { byStore[$0] } }

  public var stores: [Store] { byStore.keys.sorted { $0.rawValue < $1.rawValue } }

  public var notificationRoutes: [NotificationRoute] {
    stores.flatMap { byStore[$0]?.notificationRoutes ?? [] }
  }
}
