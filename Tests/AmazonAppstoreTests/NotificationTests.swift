import AmazonAppstore
import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("Real-Time Notifications")
struct NotificationTests {
  @Test("Amazon's documented SUBSCRIPTION_PURCHASED: the SNS envelope and the RTN inside it")
  func documentedExample() throws {
    try #require(Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage))
    let message = try JSONDecoder().decode(
      SNSMessage.self, from: try AmazonVectors.data("docs/rtn-sns-subscription-purchased.json"))
    #expect(message.typedType == .notification)
    #expect(message.topicArn == "arn:aws:sns:us-east-1:033616359524:LT0XA")
    #expect(message.subject == nil)
    #expect(message.timestampMs == 1_600_701_575_686)
    let certURL = try #require(message.signingCertURL)
    #expect(SNSCertificatePolicy().allowsCertificateURL(certURL))
    let text = try #require(message.message)
    let rtn = try #require(AmazonNotification(message: text))
    #expect(rtn.appPackageName == "com.example.amazonsdkapivalidator3")
    #expect(rtn.typedNotificationType == .subscriptionPurchased)
    #expect(rtn.appUserId == "io9oFdzmCSMuKk_pp9pYccoIHRfc6kSAAYaNo51xZrg=")
    #expect(rtn.receiptId == "koxIn_LO2u7rc-_MF40hKz1vqSSJSlitfTNDeH_JAs8=:3:11")
    #expect(rtn.relatedReceipts.isEmpty)
    #expect(rtn.timestamp == 1_600_701_569_824)
    #expect(rtn.betaProductTransaction == false)
    // The documentation's signature is a placeholder: not base64, so malformed, never valid.
    let verifier = SNSMessageVerifier(allowedTopicArns: ["arn:aws:sns:us-east-1:033616359524:LT0XA"])
    let certificate = try Certificate(pem: try AmazonVectors.snsCertificatePEM())
    guard case .failure(let error) = verifier.verify(message, certificate: certificate) else {
      Issue.record("a placeholder signature verified")
      return
    }
    #expect(error.code == .malformed)
  }

  @Test("all sixteen documented types are known, each with its product type")
  func types() {
    #expect(AmazonNotificationType.allCases.count == 16)
    #expect(AmazonNotificationType(rawValue: "SUBSCRIPTION_CONVERTED_FREE_TRIAL_TO_PAID") != nil)
    #expect(AmazonNotificationType.entitlementCancelled.productType == .entitled)
    #expect(AmazonNotificationType.consumablePurchased.productType == .consumable)
    #expect(AmazonNotificationType.subscriptionModifiedImmediate.productType == .subscription)
  }

  @Test("tolerant: relatedReceipts as an object or an array, mixed case, strings for numbers, unknown types")
  func tolerant() throws {
    let immediate = try #require(
      AmazonNotification(
        message: #"""
          {"AppUserId":"u1","receiptId":"r2","notificationType":"SUBSCRIPTION_MODIFIED_IMMEDIATE",
           "relatedReceipts":{"cancelledReceiptId":"r1"},"timestamp":"1600701569824","betaProductTransaction":"false",
           "somethingNew":1}
          """#))
    #expect(immediate.appUserId == "u1")
    #expect(immediate.relatedReceipts == ["cancelledReceiptId": "r1"])
    #expect(immediate.relatedReceiptIds == ["r1"])
    #expect(immediate.timestamp == 1_600_701_569_824)
    #expect(immediate.betaProductTransaction == false)
    let deferred = try #require(
      AmazonNotification(message: #"{"notificationType":"SUBSCRIPTION_MODIFIED_DEFERRED","relatedReceipts":[]}"#))
    #expect(deferred.typedNotificationType == .subscriptionModifiedDeferred)
    #expect(deferred.relatedReceiptIds.isEmpty)
    let future = try #require(AmazonNotification(message: #"{"notificationType":"SUBSCRIPTION_TELEPORTED"}"#))
    #expect(future.notificationType == "SUBSCRIPTION_TELEPORTED")
    #expect(future.typedNotificationType == nil)
    #expect(AmazonNotification(message: "Hello world") == nil)
  }
}
