import AppStoreGateway
import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateCore
import TollgateCrypto
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// `AppStoreGateway.lookUpOrder` (Look Up Order ID) against the store simulator over HTTP: the
/// order id on a customer's receipt e-mail maps to the purchase's verified transaction.
@Suite("App Store order lookup through the gateway, against the simulator")
struct OrderLookupTests {
  static let bundleId = LocalStack.bundleId

  /// A started simulator selling `bundleId`, and a gateway for it in `environment`
  /// ("production" or "sandbox") with the simulator's root, as the worker builds one.
  struct Apple: Sendable {
    let sim: StoreSimulator
    let gateway: AppStoreGateway
    let directory: TemporaryDirectory

    func stop() async {
      await sim.stop()
      directory.remove()
    }
  }

  static func start(environment: String = "production") async throws -> Apple {
    let directory = try TemporaryDirectory(prefix: "order-lookup")
    let key = try P256PrivateKey.generate()
    var config = StoreSimulator.Config.defaults
    config.dataDirectory = directory.file("storesim")
    config.apple.apps[0].apiKey = .init(
      keyId: "LOOKUPKEY", issuerId: "LOOKUP-ISSUER", publicKeyPEM: try LocalStack.publicPEM(key))
    let sim = try await StoreSimulator.start(config: config, logger: Logger(label: "test.sim"))
    do {
      let root = directory.file("apple-root.cer")
      try Data(sim.rootCertificate.der).write(to: URL(fileURLWithPath: root))
      var app = AppleAppSettings(bundleId: bundleId)
      app.appAppleId = config.apple.apps[0].appAppleId
      app.environment = environment
      app.apiKeyId = "LOOKUPKEY"
      app.apiIssuerId = "LOOKUP-ISSUER"
      app.apiPrivateKeyEnv = "LOOKUP_KEY"
      app.apiBaseURL = environment == "production" ? sim.baseURL : sim.baseURL + "/sandbox"
      app.sandboxAPIBaseURL = sim.baseURL + "/sandbox"
      app.rootCertificates = [root]
      let gateway = try AppStoreGateway(
        settings: AppStoreSettings(apps: [app]), environment: ["LOOKUP_KEY": try key.pkcs8PEM()],
        httpClient: .shared, concurrency: 2, nowMs: { sim.clockNowMs }, logger: Logger(label: "test.gateway"))
      return Apple(sim: sim, gateway: gateway, directory: directory)
    } catch {
      await sim.stop()
      directory.remove()
      throw error
    }
  }

  @Test("an order id gives its verified purchase, asked on the production URL")
  func findsTheOrder() async throws {
    let apple = try await Self.start()
    do {
      let purchase = try await apple.sim.purchase(
        ApplePurchaseRequest(productId: LocalStack.premium, bundleId: Self.bundleId, environment: "Production"))
      apple.sim.clearStoreRequests()
      let lines = try await apple.gateway.lookUpOrder(purchase.orderId)
      #expect(
        lines == [
          OrderLine(
            appId: Self.bundleId, transactionId: purchase.transactionId,
            originalTransactionId: purchase.originalTransactionId, productId: LocalStack.premium,
            environment: .production, signedAtMs: lines.first?.signedAtMs)
        ])
      #expect(lines.first?.signedAtMs != nil)
      let asked = apple.sim.storeRequests.map(\.request)
      #expect(asked.contains { $0.hasPrefix("/inApps/v1/lookup/") }, "\(asked)")
      #expect(!asked.contains { $0.hasPrefix("/sandbox") }, "Apple serves the order lookup in production only")
    } catch {
      await apple.stop()
      throw error
    }
    await apple.stop()
  }

  @Test("an order Apple does not know (status 1) gives nothing; neither does a forged answer")
  func unknownAndForged() async throws {
    let apple = try await Self.start()
    do {
      #expect(try await apple.gateway.lookUpOrder("MK5TTTVWJH").isEmpty)
      let purchase = try await apple.sim.purchase(
        ApplePurchaseRequest(productId: LocalStack.premium, bundleId: Self.bundleId, environment: "Production"))
      try apple.sim.addFault(FaultRule(target: "apple.api", mode: .badSignature))
      #expect(try await apple.gateway.lookUpOrder(purchase.orderId).isEmpty, "a JWS that fails verification is dropped")
      #expect(apple.sim.appliedFaults.count == 1)
      #expect(try await apple.gateway.lookUpOrder(purchase.orderId).count == 1)
    } catch {
      await apple.stop()
      throw error
    }
    await apple.stop()
  }

  @Test("Apple failing is a transient StoreFailure, not an empty answer")
  func storeTrouble() async throws {
    let apple = try await Self.start()
    do {
      try apple.sim.addFault(FaultRule(target: "apple.api", mode: .error500))
      do {
        _ = try await apple.gateway.lookUpOrder("MK5TTTVWJH")
        Issue.record("a 500 was answered as no order")
      } catch {
        #expect(error.kind == .transient)
      }
    } catch {
      await apple.stop()
      throw error
    }
    await apple.stop()
  }

  @Test("a sandbox-only app asks through its sandbox client and finds sandbox orders")
  func sandboxApp() async throws {
    let apple = try await Self.start(environment: "sandbox")
    do {
      let purchase = try await apple.sim.purchase(
        ApplePurchaseRequest(productId: LocalStack.premium, bundleId: Self.bundleId, environment: "Sandbox"))
      let lines = try await apple.gateway.lookUpOrder(purchase.orderId)
      #expect(lines.map(\.originalTransactionId) == [purchase.originalTransactionId])
      #expect(lines.first?.environment == .sandbox)
    } catch {
      await apple.stop()
      throw error
    }
    await apple.stop()
  }
}
