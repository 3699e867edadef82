import Foundation

extension AmazonInspection {
  /// Inspects an RVS `verifyReceiptId` response body at `atMs`.
  ///
  /// Invalid when it is RVS's error body (`rvs_error`: RVS answers errors with an HTTP status and
  /// a body of a `message` only), another resource (`not_an_rvs_receipt`: a Billing Compatibility
  /// `androidpublisher#…` resource, or an object without any receipt field), or a receipt Tollgate
  /// cannot read in full: no `receiptId` (`missing_receipt_id`), fields present but unreadable
  /// (`unreadable_fields`), or one it would grant nothing for although Amazon may mean access
  /// (`unknown_product_type`, `missing_purchase_date`, `missing_product_id`,
  /// `subscription_without_end`). The summary is there whenever the body is a receipt. Throws
  /// `Unreadable` unless `json` is a JSON object.
  public static func inspectReceipt(json: [UInt8], atMs: Int64) throws(Unreadable) -> Report {
    guard let object = jsonObject(json) else { throw Unreadable("not a JSON object") }
    var report = Report(payload: object)
    let keys = Set(object.keys.map { $0.lowercased() })
    if let kind = object["kind"] as? String {
      report.problem = Problem(
        code: "not_an_rvs_receipt",
        message: "kind \(kind) is an Appstore Billing Compatibility resource, not an RVS verifyReceiptId response")
      return report
    }
    guard !keys.isDisjoint(with: receiptKeys) else {
      if let message = object["message"] as? String {
        report.problem = Problem(
          code: "rvs_error",
          message:
            "RVS's error body (\"\(message)\"), not a receipt: RVS gives its answer in the HTTP status (400 invalid receipt, 410 no longer valid, 429 and 5xx retry later, 496 invalid shared secret, 497 invalid user id)"
        )
      } else {
        report.problem = Problem(code: "not_an_rvs_receipt", message: "no receipt field (receiptId, productType, …)")
      }
      return report
    }
    let receipt: RVSReceipt
    do {
      receipt = try JSONDecoder().decode(RVSReceipt.self, from: Data(json))
    } catch {
      report.problem = Problem(code: "not_an_rvs_receipt", message: "not an RVS receipt: \(error)")
      return report
    }
    let mapping = AmazonMapping(receipt: receipt, environment: .production, asOfMs: atMs)
    report.summary = AmazonReceiptSummary(receipt: receipt, mapping: mapping, atMs: atMs).jsonObject
    report.problem = problem(receipt: receipt, mapping: mapping)
    return report
  }

  /// Why Tollgate cannot read `receipt` in full, or would grant nothing Amazon may mean; `nil`
  /// when nothing is withheld or misread.
  static func problem(receipt: RVSReceipt, mapping: AmazonMapping) -> Problem? {
    guard receipt.receiptId != nil else {
      return Problem(code: "missing_receipt_id", message: "no receiptId: Tollgate keys Amazon purchases by it")
    }
    if !receipt.unreadableFields.isEmpty {
      return Problem(
        code: "unreadable_fields",
        message:
          "present but unreadable, so left out: \(receipt.unreadableFields.joined(separator: ", "))")
    }
    for note in mapping.notes where note.failsClosed {
      switch note {
      case .unknownProductType(_, let raw):
        return Problem(
          code: "unknown_product_type",
          message: "productType \(raw ?? "(none)") is not SUBSCRIPTION, ENTITLED or CONSUMABLE: Tollgate grants nothing"
        )
      case .withoutPurchaseDate:
        return Problem(code: "missing_purchase_date", message: "no purchaseDate: Tollgate grants nothing")
      case .withoutProductId:
        return Problem(code: "missing_product_id", message: "no productId or termSku: Tollgate grants nothing")
      case .subscriptionWithoutEnd:
        return Problem(
          code: "subscription_without_end",
          message: "a SUBSCRIPTION with neither renewalDate nor cancelDate: Tollgate grants nothing")
      default:
        return Problem(code: "fails_closed", message: "Tollgate grants nothing for this receipt: \(note)")
      }
    }
    return nil
  }

  /// Fields (lower-cased) only a receipt has: one of them makes a body a receipt.
  static let receiptKeys: Set<String> = [
    "receiptid", "producttype", "productid", "purchasedate", "renewaldate", "termsku", "canceldate",
  ]
}
