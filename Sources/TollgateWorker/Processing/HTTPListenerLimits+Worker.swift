import NIOCore
import TollgateHTTPListener

extension HTTPListenerLimits {
  /// One of the worker's listeners (`listen` or `adminListen`, the metrics' `listener` dimension):
  /// the head and request deadlines (`worker.headerTimeoutMs`, `worker.requestTimeoutMs`), the
  /// minimum body rate (`worker.minBodyBytesPerSecond`, `worker.bodyRateGraceMs`) and the cap
  /// (`worker.maxConnections` or `worker.adminMaxConnections`); each cut is counted in
  /// `tollgate_http_connections_cut_total`.
  convenience init(listener: String, settings: WorkerSettings, maxConnections: Int, stats: WorkerStats) {
    self.init(
      listener: listener, headerTimeout: .milliseconds(settings.headerTimeoutMs),
      requestTimeout: .milliseconds(settings.requestTimeoutMs), minBodyBytesPerSecond: settings.minBodyBytesPerSecond,
      bodyRateGrace: .milliseconds(settings.bodyRateGraceMs), maxConnections: maxConnections,
      countCut: { listener, reason in stats.httpConnectionCut(listener: listener, reason: reason) })
  }
}
