import Testing
import TollgateCallers

@Suite("CallerOperation: the one scope table of every door")
struct CallerOperationTests {
  static let admin: [CallerOperation] = [.lookUp, .getTimeline, .explain, .grant, .revoke, .reverify, .eraseUser]

  @Test("every operation needs exactly one scope, and every method name is its own")
  func everyOperationHasAScope() {
    for operation in CallerOperation.allCases {
      #expect(operation.requiredScope.names.count == 1, "\(operation)")
    }
    #expect(Set(CallerOperation.allCases.map(\.methodName)).count == CallerOperation.allCases.count)
  }

  @Test("reads need read, submissions need submit, every support and admin operation needs admin")
  func table() {
    for operation in [CallerOperation.isSubscriber, .getSubscription, .health] {
      #expect(operation.requiredScope == .read)
    }
    for operation in [CallerOperation.submitPurchase, .getSubmission] {
      #expect(operation.requiredScope == .submit)
    }
    for operation in Self.admin { #expect(operation.requiredScope == .admin, "\(operation)") }
    #expect(CallerOperation.allCases.count == 5 + Self.admin.count, "a new operation is placed in this table")
  }

  @Test("admin allows every operation; read and submit together allow no admin operation")
  func adminAllowsEverything() {
    for operation in CallerOperation.allCases {
      #expect(CallerScopes.admin.allow(operation.requiredScope))
    }
    for operation in Self.admin {
      #expect(!CallerScopes([.read, .submit]).allow(operation.requiredScope))
    }
    #expect(CallerScopes.parse(["admin"]) == .success(.admin), "admin is a configurable scope")
  }
}
