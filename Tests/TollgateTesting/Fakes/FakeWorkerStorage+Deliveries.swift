import TollgateWorker

/// The deliveries of a user's events as SQLite reads them (`SQLiteWorkerStorage+Deliveries`).
extension FakeWorkerStorage {
  package func webhookDeliveries(userId: String, limit: Int) -> [EventDeliveries] {
    let events = Array(storedEvents.filter { $0.event.userId == userId }.reversed().prefix(max(0, limit)))
    let cursorStates = cursors.map { endpoint, last in
      let failing = webhookBook.failing[endpoint]
      return WebhookCursorState(
        endpoint: endpoint, lastEventId: last, failingEventId: failing?.eventId, failedAttempts: failing?.attempts ?? 0,
        firstFailedAtMs: failing?.since)
    }
    let ids = Set(events.map(\.id))
    let parked = webhookBook.parked.values.flatMap(\.values).filter { ids.contains($0.eventId) }
    return EventDeliveries.combine(events: events, cursors: cursorStates, parked: parked)
  }
}
