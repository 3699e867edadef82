import Foundation

/// A verified V2 notification with its nested signed parts verified too.
public struct VerifiedNotification: Sendable {
  public var notification: ResponseBodyV2DecodedPayload
  public var transaction: JWSTransactionDecodedPayload?
  public var renewalInfo: JWSRenewalInfoDecodedPayload?
  public var appTransaction: AppTransaction?

  public init(
    notification: ResponseBodyV2DecodedPayload, transaction: JWSTransactionDecodedPayload? = nil,
    renewalInfo: JWSRenewalInfoDecodedPayload? = nil, appTransaction: AppTransaction? = nil
  ) {
    self.notification = notification
    self.transaction = transaction
    self.renewalInfo = renewalInfo
    self.appTransaction = appTransaction
  }
}

extension SignedDataVerifier {
  /// Verifies the HTTP body Apple posts (`{"signedPayload": "…"}`), then the nested
  /// `signedTransactionInfo`, `signedRenewalInfo` and `signedAppTransactionInfo`. Any part
  /// failing fails the whole notification.
  public func verifyNotificationBody(_ body: [UInt8]) -> VerificationResult<VerifiedNotification> {
    struct Body: Decodable { var signedPayload: String }
    guard let parsed = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
      return .invalid(VerificationError(code: .invalidJWTFormat, message: "the body has no signedPayload"))
    }
    return verifyNotificationContents(parsed.signedPayload)
  }

  /// Verifies a `signedPayload` and every signed part inside it.
  public func verifyNotificationContents(_ signedPayload: String) -> VerificationResult<VerifiedNotification> {
    verifyNotification(signedPayload).map { notification in
      var verified = VerifiedNotification(notification: notification)
      if let signed = notification.data?.signedTransactionInfo {
        switch verifyTransaction(signed) {
        case .valid(let transaction): verified.transaction = transaction
        case .invalid(let error): return .invalid(error.nested("signedTransactionInfo"))
        }
      }
      if let signed = notification.data?.signedRenewalInfo {
        switch verifyRenewalInfo(signed) {
        case .valid(let renewalInfo): verified.renewalInfo = renewalInfo
        case .invalid(let error): return .invalid(error.nested("signedRenewalInfo"))
        }
      }
      if let signed = notification.appData?.signedAppTransactionInfo {
        switch verifyAppTransaction(signed) {
        case .valid(let app): verified.appTransaction = app
        case .invalid(let error): return .invalid(error.nested("signedAppTransactionInfo"))
        }
      }
      return .valid(verified)
    }
  }
}

extension VerificationError {
  func nested(_ field: String) -> VerificationError {
    VerificationError(code: code, message: "\(field): \(message)")
  }
}
