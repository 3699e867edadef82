/// What housekeeping may delete: records past their use, each kept for a retention period.
public struct PrunePlan: Sendable, Hashable {
  /// Finished inbox items (verified, rejected, failed) completed before this moment.
  public var finishedInboxBeforeMs: Int64
  /// Change-feed entries written before this moment, deleted only as a prefix of the feed: from
  /// the oldest entry up to (not including) the first entry written at or after this moment, the
  /// newest entry, and the lowest position of the readers seen lately
  /// (`changeFeedReadersSeenSinceMs`). A follower compares the entry at its position, so a
  /// replica whose position was deleted all the same (it was not seen lately) finds it missing
  /// and reloads its index.
  public var changeFeedBeforeMs: Int64
  /// Feed readers (`serve` replicas, `EntitlementStorage.recordFeedPosition`) that recorded their
  /// position at or after this moment hold the feed: no entry from the lowest of their positions
  /// on is deleted. Readers last seen before it (a replica that crashed) hold nothing, and their
  /// rows are deleted. `Int64.min`: every recorded reader holds the feed and none is deleted.
  public var changeFeedReadersSeenSinceMs: Int64
  /// Events before this moment, when every webhook endpoint has acknowledged them. Parked events
  /// (and those queued for redelivery) stay, and so does the newest event: an event id is never
  /// handed out again (`WorkerStorage.events(after:limit:)`).
  public var eventsBeforeMs: Int64
  /// The last event every configured webhook endpoint acknowledged; nil when none is configured.
  public var eventsDeliveredThroughId: Int64?
  /// GDPR erasures (`WorkerStorage.eraseUser`): the newest change-feed entry with reason
  /// `ErasureText.feedReason` written before this moment, and every entry before it, are deleted
  /// too, within the same bounds as above (never the newest entry, never from the lowest position
  /// of the readers seen lately on), so the erased user's id leaves the feed without an entry
  /// going from its middle. Nil: erasures wait for `changeFeedBeforeMs` like every entry.
  public var erasureMarkersBeforeMs: Int64?
  /// Housekeeping's job lease (`JobLease.housekeeping`) the prune is fenced by; nil: unfenced by one.
  public var lease: JobLease?

  public init(
    finishedInboxBeforeMs: Int64, changeFeedBeforeMs: Int64, eventsBeforeMs: Int64, eventsDeliveredThroughId: Int64?,
    changeFeedReadersSeenSinceMs: Int64 = .min, erasureMarkersBeforeMs: Int64? = nil, lease: JobLease? = nil
  ) {
    self.finishedInboxBeforeMs = finishedInboxBeforeMs
    self.changeFeedBeforeMs = changeFeedBeforeMs
    self.changeFeedReadersSeenSinceMs = changeFeedReadersSeenSinceMs
    self.erasureMarkersBeforeMs = erasureMarkersBeforeMs
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
  /// Feed readers not seen since `PrunePlan.changeFeedReadersSeenSinceMs` (their rows).
  public var feedReaders: Int

  public init(inbox: Int = 0, changeFeed: Int = 0, events: Int = 0, feedReaders: Int = 0) {
    self.inbox = inbox
    self.changeFeed = changeFeed
    self.events = events
    self.feedReaders = feedReaders
  }
}
