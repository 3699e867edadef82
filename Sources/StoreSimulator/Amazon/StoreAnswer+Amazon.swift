import HTTPTypes

/// RVS's answers other than a receipt, and what each fault mode answers for `amazon.rvs`.
extension StoreAnswer {
  /// `status` with a short JSON body (Amazon documents the status codes, not the bodies).
  static func amazonError(_ status: Int, _ message: String, headers: HTTPFields = [:]) -> StoreAnswer {
    struct Body: Encodable {
      var message: String
      var status: Bool
    }
    return json(Body(message: message, status: false), status: .init(code: status), headers: headers)
  }

  static func amazonRVS(_ outcome: AmazonRVSOutcome, countryCode: String) -> StoreAnswer {
    switch outcome {
    case .receipt(let receipt): .json(AmazonReceiptResource(receipt: receipt, countryCode: countryCode))
    case .invalidReceipt: amazonError(400, "Invalid receiptId")
    case .noLongerValid: amazonError(410, "The receipt is no longer valid")
    case .invalidSharedSecret: amazonError(496, "Invalid sharedSecret")
    case .invalidUserId: amazonError(497, "Invalid User ID")
    }
  }

  /// What `fault` answers for `amazon.rvs`, when the answer is an error body; `nil` otherwise.
  static func amazonFault(_ target: String, _ fault: FaultRule) -> StoreAnswer? {
    guard target == "amazon.rvs" else { return nil }
    switch (fault.mode, fault.status) {
    case (.error500, 503?): return amazonError(503, "Service Unavailable")
    case (.error500, 504?): return amazonError(504, "Gateway Timeout")
    case (.error500, _): return amazonError(500, "Internal Server Error")
    case (.rateLimit, _):
      return amazonError(429, "Too Many Requests", headers: HTTPAnswer.retryAfter(fault.retryAfterSeconds))
    case (.unauthorized, 497?): return amazonRVS(.invalidUserId, countryCode: "")
    case (.unauthorized, _): return amazonRVS(.invalidSharedSecret, countryCode: "")
    default: return nil
    }
  }
}
