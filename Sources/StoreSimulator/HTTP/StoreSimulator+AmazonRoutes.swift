import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TollgateCrypto

/// Amazon's side over HTTP: the Receipt Verification Service (production and the RVS Cloud
/// Sandbox under `/sandbox`, behind the `amazon.rvs` faults) and what Amazon SNS serves (the
/// signing certificate, the SubscribeURL and UnsubscribeURL).
extension StoreSimulator {
  func addAmazonRoutes(to router: Router<SimRequestContext>) {
    addAmazonControlRoutes(to: router)
    let path = "/version/1.0/verifyReceiptId/developer/:secret/user/:user/receiptId/:receipt"
    for sandbox in [false, true] {
      router.get(RouterPath((sandbox ? "/sandbox" : "") + path)) { request, context in
        let decode = { (name: String) in context.parameters.get(name).map { $0.removingPercentEncoding ?? $0 } ?? "" }
        let secret = decode("secret")
        let user = decode("user")
        let receipt = decode("receipt")
        // The shared secret never reaches the applied-fault log: it is named by a digest.
        let key =
          "\(sandbox ? "/sandbox" : "")/version/1.0/verifyReceiptId/developer/sha256:"
          + SHA256.hash(secret).prefix(6).hexString + "/user/\(context.parameters.get("user") ?? "")/receiptId/"
          + (context.parameters.get("receipt") ?? "")
        return await self.storeAnswer("amazon.rvs", request, context, requestKey: key) { () async -> StoreAnswer in
          self.state.withLock { state in
            let outcome = state.amazon.verify(
              sharedSecret: secret, userId: user, receiptId: receipt, sandbox: sandbox, nowMs: state.core.nowMs)
            return .amazonRVS(outcome, countryCode: self.config.amazon.countryCode)
          }
        }
      }
    }
    router.get(RouterPath(AmazonSNSSigner.certificatePath)) { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/x-x509-ca-cert"],
        body: .init(byteBuffer: ByteBuffer(string: self.amazonSigningCertificatePEM)))
    }
    router.get("/sns/confirm") { request, _ in
      let token = request.uri.queryParameters.get("Token") ?? ""
      let topicArn = request.uri.queryParameters.get("TopicArn")
      guard let arn = await self.amazonConfirmSubscription(token: token, topicArn: topicArn) else {
        return Self.snsXML(.notFound, Self.snsError("NotFound", "Subscription not found or token invalid"))
      }
      return Self.snsXML(
        .ok,
        "<ConfirmSubscriptionResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\n"
          + "  <ConfirmSubscriptionResult>\n    <SubscriptionArn>\(arn)</SubscriptionArn>\n"
          + "  </ConfirmSubscriptionResult>\n  <ResponseMetadata>\n    <RequestId>\(Self.requestId)</RequestId>\n"
          + "  </ResponseMetadata>\n</ConfirmSubscriptionResponse>\n")
    }
    router.get("/sns/unsubscribe") { request, _ in
      let arn = request.uri.queryParameters.get("SubscriptionArn").map { String($0) } ?? ""
      guard self.state.withLock({ $0.amazon.unsubscribe(subscriptionArn: arn) }) else {
        return Self.snsXML(.notFound, Self.snsError("NotFound", "Subscription does not exist"))
      }
      return Self.snsXML(
        .ok,
        "<UnsubscribeResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\n  <ResponseMetadata>\n"
          + "    <RequestId>\(Self.requestId)</RequestId>\n  </ResponseMetadata>\n</UnsubscribeResponse>\n")
    }
  }

  private static var requestId: String { UUID().uuidString.lowercased() }

  private static func snsError(_ code: String, _ message: String) -> String {
    "<ErrorResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\n  <Error>\n    <Type>Sender</Type>\n"
      + "    <Code>\(code)</Code>\n    <Message>\(message)</Message>\n  </Error>\n"
      + "  <RequestId>\(requestId)</RequestId>\n</ErrorResponse>\n"
  }

  private static func snsXML(_ status: HTTPResponse.Status, _ xml: String) -> Response {
    Response(status: status, headers: [.contentType: "text/xml"], body: .init(byteBuffer: ByteBuffer(string: xml)))
  }
}
