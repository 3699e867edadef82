import TollgateCore
import TollgateWorker

extension FakeWorkerStorage {
  /// The user's rejected submissions, newest first (the fake keeps no product or rejection time).
  package func rejectedSubmissions(userId: String, limit: Int) -> [RejectedSubmission] {
    items.values.filter { $0.item.kind == .purchase && $0.item.userId == userId && $0.status == .rejected }
      .sorted { $0.item.id > $1.item.id }.prefix(limit).map {
        RejectedSubmission(
          store: $0.item.store, productId: nil, receivedAtMs: $0.item.receivedAtMs, rejectedAtMs: nil,
          reason: $0.outcome ?? "")
      }
  }
}
