import AsyncHTTPClient
import Foundation
import NIOCore

/// What `tollgate bench worker` reads from the processes it measures: the worker's own metrics
/// (`GET /metrics` on its admin listener) and the CPU time of each process and of the worker's
/// threads (`/proc`).
struct WorkerMetricsProbe: Sendable {
  /// `http://HOST:PORT` of the worker's admin listener.
  var baseURL: String

  struct Unreadable: Error, CustomStringConvertible {
    var detail: String
    var description: String { "the worker's /metrics could not be read: \(detail)" }
  }

  /// One scrape: every sample, by its series (`name{labels}`, as the text format writes it).
  struct Scrape: Sendable {
    var samples: [String: Double]

    /// Inbox items the worker finished (verified and rejected).
    var finished: Double { verified + rejected }
    var verified: Double { samples[#"tollgate_worker_items_total{outcome="verified"}"#] ?? 0 }
    var rejected: Double { samples[#"tollgate_worker_items_total{outcome="rejected"}"#] ?? 0 }

    /// The sum of every series of `family` whose labels contain `matching` (all when nil), by
    /// the value of the label `key`.
    func sums(_ family: String, by key: String, matching: String? = nil) -> [String: Double] {
      var sums: [String: Double] = [:]
      for (series, value) in samples where series.hasPrefix(family + "{") {
        if let matching, !series.contains(matching) { continue }
        guard let label = Self.label(key, in: series) else { continue }
        sums[label, default: 0] += value
      }
      return sums
    }

    static func label(_ key: String, in series: String) -> String? {
      guard let start = series.range(of: key + "=\"") else { return nil }
      let rest = series[start.upperBound...]
      guard let end = rest.firstIndex(of: "\"") else { return nil }
      return String(rest[..<end])
    }
  }

  func scrape() async throws -> Scrape {
    let request = HTTPClientRequest(url: baseURL + "/metrics")
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    guard response.status == .ok else { throw Unreadable(detail: "status \(response.status.code)") }
    let body = String(buffer: try await response.body.collect(upTo: 8 << 20))
    var samples: [String: Double] = [:]
    for line in body.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
        continue
      }
      samples[String(line[..<space])] = value
    }
    return Scrape(samples: samples)
  }
}

/// CPU seconds (user + system) of processes and of their threads, from `/proc/PID/stat` and
/// `/proc/PID/task/TID/stat`.
enum ProcessCPU {
  static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

  /// The process's CPU seconds so far, nil when it cannot be read.
  static func seconds(pid: Int32) -> Double? {
    stat("/proc/\(pid)/stat").map { $0.cpuSeconds }
  }

  /// CPU seconds of the process's threads so far, by thread name with its digits taken out
  /// (NIO's `NIO-ELT-0-#1` and `NIO-ELT-0-#2` count together).
  static func threads(pid: Int32) -> [String: Double] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var byName: [String: Double] = [:]
    for task in tasks {
      guard let stat = stat("/proc/\(pid)/task/\(task)/stat") else { continue }
      byName[String(stat.name.filter { !$0.isNumber }), default: 0] += stat.cpuSeconds
    }
    return byName
  }

  /// This process's own CPU seconds (the bench's load).
  static func own() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }

  private static func stat(_ path: String) -> (name: String, cpuSeconds: Double)? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
      let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
    else { return nil }
    let name = String(text[text.index(after: open)..<close])
    // After the name: state (field 3), …, utime (14), stime (15).
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (name, (user + system) / ticksPerSecond)
  }
}

/// CPU seconds of several processes (and the worker's threads) between two moments.
struct CPUSample: Sendable {
  var processes: [String: Double]
  var workerThreads: [String: Double]
  var bench: Double

  static func take(_ pids: [String: Int32], worker: Int32?) -> CPUSample {
    CPUSample(
      processes: pids.compactMapValues { ProcessCPU.seconds(pid: $0) },
      workerThreads: worker.map { ProcessCPU.threads(pid: $0) } ?? [:], bench: ProcessCPU.own())
  }

  /// What was spent from `earlier` to this sample, the bench's own CPU under "bench".
  func since(_ earlier: CPUSample) -> (processes: [String: Double], workerThreads: [String: Double]) {
    var processes = processes.map { ($0.key, $0.value - (earlier.processes[$0.key] ?? 0)) }
    processes.append(("bench", bench - earlier.bench))
    let threads = workerThreads.map { ($0.key, $0.value - (earlier.workerThreads[$0.key] ?? 0)) }
    return (
      Dictionary(processes) { a, _ in a }, Dictionary(threads.filter { $0.1 > 0.005 }) { a, _ in a }
    )
  }
}
