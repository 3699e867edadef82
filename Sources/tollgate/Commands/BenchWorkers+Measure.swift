import Foundation
import TollgateClient
import TollgateContract

/// One `tollgate bench workers` run: submissions sent, then IsSubscriber polled until every user
/// is entitled. Times are milliseconds from the first submission.
struct WorkersMeasurement: Encodable, Sendable {
  var purchases: Int
  /// Purchases over the time to the last user answered entitled.
  var verificationsPerSecond: Double
  var lastEntitledMs: Int64
  var halfEntitledMs: Int64
  /// When the last submission was acknowledged.
  var submittedMs: Int64
  var notAcknowledged: Int
  /// Submissions sent again after a refusal or no answer (over serve's submitsPerSecondPerCaller,
  /// for one): a bench that measures that limit instead of the workers says so.
  var resubmitted: Int
  var notEntitled: Int

  struct Unanswered: Error, CustomStringConvertible {
    var cause: any Error
    var description: String { "the service did not answer IsSubscriber: \(cause)" }
  }

  /// Submits `requests` (`inFlight` at once) while polling; returns once every user is entitled
  /// or `timeout` has passed since the first submission.
  static func measure(
    _ requests: [Tollgate_V1_SubmitPurchaseRequest], client: TollgateClient, entitlement: String, inFlight: Int,
    pollBatch: Int, timeout: Duration
  ) async throws -> WorkersMeasurement {
    let clock = ContinuousClock()
    let started = clock.now
    let deadline = started + timeout
    async let unacknowledged = submit(requests, client: client, inFlight: inFlight, deadline: deadline)
    // Elapsed time at which each user was first answered entitled.
    var entitledAfter: [Duration] = []
    // Users not answered entitled yet, oldest submission first. Each round asks the first
    // `pollBatch` of them (a bounded load on the service, which shares the machine with the
    // workers); those still not entitled go to the back. A round that found all entitled is
    // followed at once by the next, so a backlog of finished users is found quickly.
    var pending = requests.map(\.userID)[...]
    while !pending.isEmpty, clock.now < deadline {
      let batch = Array(pending.prefix(pollBatch))
      let still = try await notEntitled(batch, client: client, entitlement: entitlement)
      entitledAfter += Array(repeating: clock.now - started, count: batch.count - still.count)
      pending = pending.dropFirst(batch.count) + still
      if !still.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    }
    let (notAcknowledged, resubmitted, submittedAt) = await unacknowledged
    let last = entitledAfter.last ?? (clock.now - started)
    let half = entitledAfter.isEmpty ? last : entitledAfter[(entitledAfter.count - 1) / 2]
    return WorkersMeasurement(
      purchases: requests.count,
      verificationsPerSecond: Double(entitledAfter.count) / max(last / .seconds(1), 1e-9),
      lastEntitledMs: milliseconds(last), halfEntitledMs: milliseconds(half),
      submittedMs: milliseconds(submittedAt - started), notAcknowledged: notAcknowledged, resubmitted: resubmitted,
      notEntitled: pending.count)
  }

  /// Sends every submission (wait_ms 0), `inFlight` at once, retrying one that was not
  /// acknowledged until `deadline`; how many never were, and when the last one was answered.
  private static func submit(
    _ requests: [Tollgate_V1_SubmitPurchaseRequest], client: TollgateClient, inFlight: Int,
    deadline: ContinuousClock.Instant
  ) async -> (failed: Int, resent: Int, at: ContinuousClock.Instant) {
    // Each task: acknowledged or not, and how many times it was sent again.
    await withTaskGroup(of: (Bool, Int).self) { group in
      var failed = 0
      var resent = 0
      for (position, request) in requests.enumerated() {
        if position >= inFlight, let (acknowledged, again) = await group.next() {
          failed += acknowledged ? 0 : 1
          resent += again
        }
        group.addTask {
          var again = 0
          while ContinuousClock.now < deadline {
            if let answer = try? await client.submitPurchase(request, timeout: .seconds(10)),
              !answer.submissionID.isEmpty
            {
              return (true, again)
            }
            again += 1
            try? await Task.sleep(for: .milliseconds(100))
          }
          return (false, again)
        }
      }
      for await (acknowledged, again) in group {
        failed += acknowledged ? 0 : 1
        resent += again
      }
      return (failed, resent, ContinuousClock.now)
    }
  }

  /// The users of `batch` the service does not answer entitled yet, asked all at once.
  private static func notEntitled(_ batch: [String], client: TollgateClient, entitlement: String)
    async throws -> [String]
  {
    let entitled = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
      for user in batch {
        group.addTask {
          do {
            return (user, try await client.isSubscriber(userId: user, entitlement: entitlement).active)
          } catch { throw Unanswered(cause: error) }
        }
      }
      var entitled: Set<String> = []
      for try await (user, active) in group where active { entitled.insert(user) }
      return entitled
    }
    return batch.filter { !entitled.contains($0) }
  }

  private static func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
  }
}
