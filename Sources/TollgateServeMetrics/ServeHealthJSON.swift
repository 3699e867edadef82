import TollgateContract
import TollgateHTTPListener

/// `GET /health` of serve's admin listener: the Health call's answer as JSON, in the worker's
/// shape where the two agree (`status` serving / degraded / not_serving, `reason`), with the
/// index, the change feed, the version and the uptime.
public enum ServeHealthJSON {
  public static func render(_ health: Tollgate_V1_HealthResponse) -> (json: String, notServing: Bool) {
    let status: String
    switch health.status {
    case .serving: status = "serving"
    case .degraded: status = "degraded"
    default: status = "not_serving"
    }
    var body: [String: Any] = [
      "status": status,
      "index": ["users": health.indexUsers, "records": health.indexRecords],
      "changeFeed": [
        "appliedSeq": health.changeFeedAppliedSeq, "headSeq": health.changeFeedHeadSeq,
        "lagMs": health.changeFeedLagMs,
      ],
      "version": health.version, "uptimeMs": health.uptimeMs,
    ]
    if !health.reason.isEmpty { body["reason"] = health.reason }
    return (ProbeJSON.text(body), status == "not_serving")
  }
}
