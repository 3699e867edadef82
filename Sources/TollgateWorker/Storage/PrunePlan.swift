/// What housekeeping may delete: records past their use, each kept for a retention period.
public struct PrunePlan: Sendable, Hashable {
  /// Finished inbox items (verified, rejected, failed) completed before this moment.
  public var finishedInboxBeforeMs: Int64
  /// Change-feed entries written before this moment; the newest entry always stays (a service
  /// that follows the feed compares it), and a service further behind reloads its index.
  public var changeFeedBeforeMs: Int64
  /// Events before this moment, when every webhook endpoint has acknowledged them. Parked events
  /// (and those queued for redelivery) stay, and so does the newest event: an event id is never
  /// handed out again (`WorkerStorage.events(after:limit:)`).
  public var eventsBeforeMs: Int64
  /// The last event every configured webhook endpoint acknowledged; nil when none is configured.
  public var eventsDeliveredThroughId: Int64?
  /// Housekeeping's job lease (`JobLease.housekeeping`) the prune is fenced by; nil: unfenced by one.
  public var lease: JobLease?

  public init(
    finishedInboxBeforeMs: Int64, changeFeedBeforeMs: Int64, eventsBeforeMs: Int64, eventsDeliveredThroughId: Int64?,
    lease: JobLease? = nil
  ) {
    self.finishedInboxBeforeMs = finishedInboxBeforeMs
    self.changeFeedBeforeMs = changeFeedBeforeMs
    self.eventsBeforeMs = eventsBeforeMs
    self.eventsDeliveredThroughId = eventsDeliveredThroughId
    self.lease = lease
  }
}

/// How many rows a prune deleted.
public struct PruneCounts: Sendable, Hashable {
  public var inbox: Int
  public var changeFeed: Int
  public var events: Int

  public init(inbox: Int = 0, changeFeed: Int = 0, events: Int = 0) {
    self.inbox = inbox
    self.changeFeed = changeFeed
    self.events = events
  }
}
