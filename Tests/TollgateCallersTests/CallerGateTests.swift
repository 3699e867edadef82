import Testing
import TollgateCallers

@Suite("CallerGate: callers identified by bearer key and by name, scopes, failures per source")
struct CallerGateTests {
  static let readerKey = "tgk_reader-0123456789"
  static let submitterKey = "tgk_submitter-0123456789"
  static let adminKey = "tgk_admin-0123456789"
  let alice = PeerSource.ipv4(0xC000_0201)
  let mallory = PeerSource.ipv4(0xC000_0202)

  static func registry() -> CallerRegistry {
    CallerRegistry([
      CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: .read),
      CallerKey(name: "submitter", keySha256: CallerKey.digest(of: submitterKey), scopes: [.read, .submit]),
      CallerKey(name: "ops", keySha256: CallerKey.digest(of: adminKey), scopes: .admin),
    ])
  }

  /// A gate whose sources may fail `burst` times (refilled at one a minute: not within a test).
  static func gate(_ registry: CallerRegistry = registry(), burst: Int = 10) -> CallerGate {
    CallerGate(
      access: .callers(registry),
      authenticationLimiter: AuthenticationLimiter(perMinute: 1, burst: burst, maximumSources: 16),
      submitLimiter: SubmitRateLimiter(perSecond: 1, burst: 2))
  }

  @Test("a bearer key names its caller and its scopes")
  func identifiesByKey() throws {
    let gate = Self.gate()
    let reader = try gate.identify(authorization: "Bearer \(Self.readerKey)", source: alice).get()
    #expect(reader == CallerIdentity(name: "reader", scopes: .read))
    let ops = try gate.identify(authorization: "bearer   \(Self.adminKey)", source: alice).get()
    #expect(ops == CallerIdentity(name: "ops", scopes: .admin))
  }

  @Test("each caller may call what its scopes allow; a refusal names the scope needed")
  func authorizesAcrossScopes() throws {
    let gate = Self.gate()
    let reader = try gate.identify(authorization: "Bearer \(Self.readerKey)", source: alice).get()
    let submitter = try gate.identify(authorization: "Bearer \(Self.submitterKey)", source: alice).get()
    let ops = try gate.identify(authorization: "Bearer \(Self.adminKey)", source: alice).get()
    for operation in CallerOperation.allCases {
      let needed = operation.requiredScope
      #expect((gate.authorize(reader, for: operation) == nil) == (needed == .read), "\(operation)")
      #expect((gate.authorize(submitter, for: operation) == nil) == (needed != .admin), "\(operation)")
      #expect(gate.authorize(ops, for: operation) == nil, "\(operation)")
    }
    let refused = try #require(gate.authorize(reader, for: .submitPurchase))
    #expect(refused.kind == .permissionDenied(needs: .submit))
    #expect(refused.message == "caller reader may not call SubmitPurchase: it needs the submit scope")
    let grant = try #require(gate.authorize(submitter, for: .grant))
    #expect(grant.kind == .permissionDenied(needs: .admin))
    #expect(grant.message == "caller submitter may not call Grant: it needs the admin scope")
  }

  @Test("a wrong or malformed key costs its source a failure; a blocked source is refused before its key is looked at")
  func failuresPerSource() throws {
    let gate = Self.gate(burst: 2)
    let wrong = gate.identify(authorization: "Bearer tgk_guess", source: mallory)
    #expect(throws: CallerRefusal.self) { try wrong.get() }
    #expect((try? wrong.get()) == nil)
    if case .failure(let refusal) = wrong { #expect(refusal.kind == .unauthenticated) }
    _ = gate.identify(authorization: "Basic bWFsbG9yeQ==", source: mallory)
    // Two failures: the source is out, and even the right key is refused unread.
    guard case .failure(let blocked) = gate.identify(authorization: "Bearer \(Self.readerKey)", source: mallory) else {
      Issue.record("a blocked source's valid key was accepted")
      return
    }
    guard case .sourceBlocked(let seconds) = blocked.kind else {
      Issue.record("refused as \(blocked.kind), not as a blocked source")
      return
    }
    #expect(seconds > 0 && seconds <= 60)
    guard case .failure(let byName) = gate.authenticate(name: "reader", key: Self.readerKey, source: mallory),
      case .sourceBlocked = byName.kind
    else {
      Issue.record("Authenticate from a blocked source was not refused as blocked")
      return
    }
    // Another source is counted apart.
    #expect(try gate.identify(authorization: "Bearer \(Self.readerKey)", source: alice).get().name == "reader")
  }

  @Test("a call without a key is refused and costs nothing")
  func missingKeyCostsNothing() throws {
    let gate = Self.gate(burst: 1)
    for _ in 0..<5 {
      guard case .failure(let refusal) = gate.identify(authorization: nil, source: alice) else {
        Issue.record("a call without a key was let in")
        return
      }
      #expect(refusal.kind == .unauthenticated)
    }
    #expect(try gate.identify(authorization: "Bearer \(Self.readerKey)", source: alice).get().name == "reader")
  }

  @Test("Authenticate by name and key; a wrong key is a failure of the source")
  func authenticateByName() throws {
    let gate = Self.gate(burst: 1)
    #expect(try gate.authenticate(name: "ops", key: Self.adminKey, source: alice).get().name == "ops")
    guard case .failure(let wrong) = gate.authenticate(name: "ops", key: Self.readerKey, source: alice) else {
      Issue.record("another caller's key authenticated ops")
      return
    }
    #expect(wrong.kind == .unauthenticated)
    #expect(!gate.authenticationLimiter.mayAttempt(alice).allowed)
  }

  @Test("a reloaded registry: an old key is refused, a new one identifies its caller at once")
  func reload() throws {
    let registry = Self.registry()
    let gate = Self.gate(registry)
    registry.replace(with: [CallerKey(name: "reader", keySha256: CallerKey.digest(of: "tgk_rotated"), scopes: .read)])
    #expect((try? gate.identify(authorization: "Bearer \(Self.readerKey)", source: alice).get()) == nil)
    #expect(try gate.identify(authorization: "Bearer tgk_rotated", source: alice).get().name == "reader")
    #expect((try? gate.identify(authorization: "Bearer \(Self.adminKey)", source: alice).get()) == nil)
  }

  @Test("one key given to two callers directly (not through CallerList) identifies neither")
  func sharedDigestIdentifiesNobody() {
    let digest = CallerKey.digest(of: "tgk_shared")
    let gate = Self.gate(
      CallerRegistry([
        CallerKey(name: "a", keySha256: digest, scopes: .read), CallerKey(name: "b", keySha256: digest, scopes: .admin),
      ]))
    #expect((try? gate.identify(authorization: "Bearer tgk_shared", source: alice).get()) == nil)
  }

  @Test("a server without callers: everyone is anyone, with every scope")
  func openAccess() throws {
    let gate = CallerGate(
      access: .open, authenticationLimiter: AuthenticationLimiter(perMinute: 1, burst: 1, maximumSources: 1),
      submitLimiter: SubmitRateLimiter(perSecond: 1, burst: 1))
    #expect(try gate.identify(authorization: nil, source: alice).get() == .anyone)
    #expect(try gate.identify(authorization: "Bearer whatever", source: alice).get() == .anyone)
    for operation in CallerOperation.allCases { #expect(gate.authorize(.anyone, for: operation) == nil) }
  }

  @Test("submissions are counted per caller")
  func submissionsPerCaller() {
    let gate = Self.gate()
    let reader = CallerIdentity(name: "reader", scopes: .read)
    #expect(gate.admitSubmission(by: reader))
    #expect(gate.admitSubmission(by: reader))
    #expect(!gate.admitSubmission(by: reader), "a burst of two")
    #expect(gate.admitSubmission(by: CallerIdentity(name: "ops", scopes: .admin)), "another caller's own rate")
  }
}
