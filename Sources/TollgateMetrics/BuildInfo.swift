import Prometheus
import TollgateContract

/// `tollgate_build_info{version,swift} 1`: which build a process runs, the version `tollgate
/// --version` and Health report (`TollgateVersion.current`), for every process that exports
/// metrics (`serve`'s and the worker's admin listeners), so a dashboard can tell replicas apart
/// during an upgrade.
public enum BuildInfo {
  public static let name = "tollgate_build_info"
  public static let help = "The build this process runs: always 1, with its version and Swift compiler as labels."

  /// The Swift compiler the binary was built with, major.minor.
  public static let swift: String = {
    #if compiler(>=7.0)
      return "7+"
    #elseif compiler(>=6.3)
      return "6.3"
    #elseif compiler(>=6.2)
      return "6.2"
    #else
      return "6.1"
    #endif
  }()

  public static var labels: [(String, String)] { [("version", TollgateVersion.current), ("swift", swift)] }

  /// Registers the gauge (set to 1) in `registry`.
  public static func register(in registry: PrometheusCollectorRegistry) {
    registry.makeGauge(
      descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels
    ).set(to: 1.0)
  }
}
