import TollgateTesting

@testable import TollgateWorker

extension WorkerParts {
  /// Claims the checks due now, as the worker's loop does (`claimDueChecks`, its lease).
  func claimDue(limit: Int = 10) async -> [DueCheck] {
    await storage.claimDueChecks(nowMs: now, limit: limit, leaseMs: settings.leaseMs)
  }

  /// Claims the checks due now and makes each, as the worker's loop does.
  func checkDue() async {
    for check in await claimDue() { await rescheduler.reverify(check) }
  }
}

extension FakeWorkerStorage {
  /// Claims the check of `subscription`'s chain now, whenever it is due (its `nextCheckAtMs`
  /// stays): a check the test makes by hand, under a claim as the worker's are.
  func claimCheck(of subscription: StoredSubscription) -> DueCheck {
    checkBook.lastToken += 1
    checkBook.tokens["\(subscription.store.rawValue):\(subscription.purchaseId)"] = checkBook.lastToken
    return DueCheck(subscription: subscription, claimToken: checkBook.lastToken)
  }
}

extension Rescheduler {
  /// `reverify` of `subscription`'s check, claimed by hand first (`FakeWorkerStorage.claimCheck`).
  func reverify(_ subscription: StoredSubscription) async {
    guard let fake = storage as? FakeWorkerStorage else {
      preconditionFailure("reverify(StoredSubscription) is for the fake's tests")
    }
    await reverify(await fake.claimCheck(of: subscription))
  }
}
