import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateServer
import TollgateWire

// Core → wire conversions of the service's answers; the enums themselves map through
// TollgateServer's CoreProtoEnums.swift, shared with the support desk.

extension Tollgate_V1_EntitlementStatus {
  /// `evaluation` with the level its state gives under `accessLevels`.
  init(_ evaluation: EvaluatedEntitlement, accessLevels: AccessLevelPolicy) {
    self.init()
    let record = evaluation.record
    entitlement = record.entitlement
    active = evaluation.active
    expiresAtMs = record.accessEndsAtMs
    state = .init(evaluation.state)
    willRenew = record.willRenew
    store = .init(record.store)
    productID = record.productId
    environment = .init(record.environment)
    verifiedAtMs = record.verifiedAtMs
    storeSubscriptionID = record.storeSubscriptionId
    accessLevel = accessLevels.level(for: evaluation).rawValue
  }
}

extension IsSubscriberAnswerView {
  /// The index's view in the wire's terms (the same mapping as `IsSubscriberAnswer.init`).
  @inline(__always)
  init(_ answer: EntitlementAnswerView) {
    self.init()
    active = answer.active
    expiresAtMs = answer.expiresAtMs
    state = answer.state.map { .init($0) } ?? .unspecified
    willRenew = answer.willRenew
    store = answer.store.map { .init($0) } ?? .unspecified
    productId = answer.productId
    environment = answer.environment.map { .init($0) } ?? .unspecified
    verifiedAtMs = answer.verifiedAtMs
    evaluatedAtMs = answer.evaluatedAtMs
    storeSubscriptionId = answer.storeSubscriptionId
    numericStoreSubscriptionId = answer.numericStoreSubscriptionId
    accessLevel = answer.accessLevel
  }
}

extension IsSubscriberAnswer {
  /// The index's answer in the wire's terms, built in one step: this runs once per IsSubscriber call.
  @inline(__always)
  init(_ answer: borrowing EntitlementAnswer) {
    self.init(
      active: answer.active, expiresAtMs: answer.expiresAtMs, state: answer.state.map { .init($0) } ?? .unspecified,
      willRenew: answer.willRenew, store: answer.store.map { .init($0) } ?? .unspecified, productId: answer.productId,
      environment: answer.environment.map { .init($0) } ?? .unspecified, verifiedAtMs: answer.verifiedAtMs,
      evaluatedAtMs: answer.evaluatedAtMs, storeSubscriptionId: answer.storeSubscriptionId,
      numericStoreSubscriptionId: answer.numericStoreSubscriptionId, accessLevel: answer.accessLevel)
  }
}
