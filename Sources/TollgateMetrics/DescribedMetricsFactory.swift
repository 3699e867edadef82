import CoreMetrics
import Prometheus

/// A swift-metrics factory on a Prometheus registry that gives every metric family its `# HELP`
/// line: the code that counts names its metrics through swift-metrics (which carries no help
/// text), and the process that exports them hands the help of each family, by name, to this
/// factory. Histograms take their buckets by name too (`durationBuckets`, `valueBuckets`).
///
/// A family missing from `help` is exported without a HELP line; a test that scrapes a real
/// process (`/metrics`) checks there is none such.
public struct DescribedMetricsFactory: MetricsFactory {
  public let registry: PrometheusCollectorRegistry
  private let help: [String: String]
  private let durationBuckets: [String: [Duration]]
  private let valueBuckets: [String: [Double]]

  /// The buckets of a duration histogram (a swift-metrics `Timer`) `durationBuckets` does not name.
  public static let defaultDurationBuckets: [Duration] = [
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
    .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
  ]

  /// The buckets of a value histogram (an aggregating `Recorder`) `valueBuckets` does not name.
  public static let defaultValueBuckets: [Double] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000]

  /// - Parameters:
  ///   - help: each family's HELP text, by metric name.
  ///   - durationBuckets: a duration histogram's buckets, by metric name.
  ///   - valueBuckets: a value histogram's buckets, by metric name.
  public init(
    registry: PrometheusCollectorRegistry, help: [String: String], durationBuckets: [String: [Duration]] = [:],
    valueBuckets: [String: [Double]] = [:]
  ) {
    self.registry = registry
    self.help = help
    self.durationBuckets = durationBuckets
    self.valueBuckets = valueBuckets
  }

  private func descriptor(_ name: String) -> MetricNameDescriptor {
    MetricNameDescriptor(metricName: name, unitName: "", helpText: help[name] ?? "")
  }

  public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
    registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
  }

  public func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
    -> any FloatingPointCounterHandler
  {
    registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
  }

  public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
    guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
    return registry.makeValueHistogram(
      descriptor: descriptor(label), labels: dimensions, buckets: valueBuckets[label] ?? Self.defaultValueBuckets)
  }

  public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
    registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
  }

  public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
    registry.makeDurationHistogram(
      descriptor: descriptor(label), labels: dimensions,
      buckets: durationBuckets[label] ?? Self.defaultDurationBuckets)
  }

  public func destroyCounter(_ handler: any CounterHandler) {
    if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
  }

  public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
    if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
  }

  public func destroyRecorder(_ handler: any RecorderHandler) {
    if let gauge = handler as? Prometheus.Gauge {
      registry.unregisterGauge(gauge)
    } else if let histogram = handler as? ValueHistogram {
      registry.unregisterValueHistogram(histogram)
    }
  }

  public func destroyMeter(_ handler: any MeterHandler) {
    if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
  }

  public func destroyTimer(_ handler: any TimerHandler) {
    if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
  }
}
