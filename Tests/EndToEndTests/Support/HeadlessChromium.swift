import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's `chromium`, headless, driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: the browser reads NUL-terminated JSON messages on its fd 3 and
/// writes its own on fd 4). Started with `posix_spawn` (never Foundation's `Process`), one page
/// attached in flat mode; every call blocks until its answer (or a deadline) while the events
/// that arrive meanwhile are kept.
final class HeadlessChromium: @unchecked Sendable {
  // @unchecked Sendable: one test drives it, one call at a time, from one Dispatch block at a
  // time (handed over through continuations, which order the accesses); never concurrently.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  let processIdentifier: pid_t
  private let toBrowser: Int32
  private let fromBrowser: Int32
  private var pending: [UInt8] = []
  private var nextId = 1
  private var sessionId: String?
  /// Events (`method`, `params`) not yet taken by `waitForEvent`, oldest first.
  private(set) var events: [(method: String, params: [String: Any])] = []
  /// Every URL the page requested (`Network.requestWillBeSent`), in order.
  private(set) var requestedURLs: [String] = []

  /// The browser on PATH (`chromium`, then `chromium-browser`), or nil.
  static var executable: String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for name in ["chromium", "chromium-browser"] {
      for directory in path.split(separator: ":") where access("\(directory)/\(name)", X_OK) == 0 {
        return "\(directory)/\(name)"
      }
    }
    return nil
  }

  /// Starts the browser with a profile in `profile` (its output in `profile/chromium.log`) and
  /// attaches to one blank page of `width` × `height` CSS pixels.
  init(executable: String, profile: String, width: Int = 1280, height: Int = 900) throws {
    var toChild: [Int32] = [0, 0]
    var fromChild: [Int32] = [0, 0]
    guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else {
      throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
    }
    // Kept from the child (the copies it gets are made below); also from other children the
    // test process starts meanwhile.
    for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    // Above every descriptor the child keeps, so that moving them to 3 and 4 clobbers nothing.
    let childReads = fcntl(toChild[0], F_DUPFD_CLOEXEC, 100)
    let childWrites = fcntl(fromChild[1], F_DUPFD_CLOEXEC, 100)
    Glibc.close(toChild[0])
    Glibc.close(fromChild[1])
    let log = open(profile + "/chromium.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    defer {
      Glibc.close(childReads)
      Glibc.close(childWrites)
      if log >= 0 { Glibc.close(log) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if log >= 0 {
      posix_spawn_file_actions_adddup2(&actions, log, 1)
      posix_spawn_file_actions_adddup2(&actions, log, 2)
    }
    posix_spawn_file_actions_adddup2(&actions, childReads, 3)
    posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
    if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 5) }

    var arguments = [
      executable, "--headless", "--remote-debugging-pipe", "--user-data-dir=\(profile)", "--no-first-run",
      "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions",
      "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
      "--hide-scrollbars", "--password-store=basic", "--use-mock-keychain", "--window-size=\(width),\(height)",
    ]
    // Chromium's sandbox refuses to run as root (containers, CI).
    if geteuid() == 0 { arguments.append("--no-sandbox") }
    arguments.append("about:blank")
    let argv = arguments.map { strdup($0) }
    let variables = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") }
    defer {
      for pointer in argv { free(pointer) }
      for pointer in variables { free(pointer) }
    }
    var pid: pid_t = 0
    let result = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
      (variables + [nil]).withUnsafeBufferPointer { envBuffer in
        posix_spawn(
          &pid, executable, &actions, nil, UnsafeMutablePointer(mutating: argvBuffer.baseAddress!),
          UnsafeMutablePointer(mutating: envBuffer.baseAddress!))
      }
    }
    guard result == 0 else {
      Glibc.close(toChild[1])
      Glibc.close(fromChild[0])
      throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
    }
    processIdentifier = pid
    toBrowser = toChild[1]
    fromBrowser = fromChild[0]
    // A browser that has gone must not kill the test with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)

    let target = try call("Target.createTarget", ["url": "about:blank"], onPage: false)
    guard let targetId = target["targetId"] as? String else { throw Failure(description: "no target: \(target)") }
    let attached = try call("Target.attachToTarget", ["targetId": targetId, "flatten": true], onPage: false)
    guard let session = attached["sessionId"] as? String else {
      throw Failure(description: "not attached: \(attached)")
    }
    sessionId = session
    _ = try call("Page.enable")
    _ = try call("Runtime.enable")
    _ = try call("Network.enable")
    _ = try call(
      "Emulation.setDeviceMetricsOverride",
      ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
  }

  /// Sends `method` (to the page unless `onPage` is false) and waits for its answer's `result`.
  @discardableResult
  func call(_ method: String, _ params: [String: Any] = [:], onPage: Bool = true, timeout: Double = 20) throws
    -> [String: Any]
  {
    let id = nextId
    nextId += 1
    var message: [String: Any] = ["id": id, "method": method, "params": params]
    if onPage, let sessionId { message["sessionId"] = sessionId }
    var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
    bytes.append(0)
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
      guard count > 0 else { throw Failure(description: "\(method): the browser's pipe is closed") }
      written += count
    }
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let reply = try nextMessage(until: deadline, waitingFor: method)
      guard (reply["id"] as? Int) == id else { continue }
      if let error = reply["error"] { throw Failure(description: "\(method): \(error)") }
      return reply["result"] as? [String: Any] ?? [:]
    }
  }

  /// Waits for the event `method` (one that arrived since `clearEvents` counts) and takes it.
  @discardableResult
  func waitForEvent(_ method: String, timeout: Double = 20) throws -> [String: Any] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let index = events.firstIndex(where: { $0.method == method }) { return events.remove(at: index).params }
      _ = try nextMessage(until: deadline, waitingFor: method)
    }
  }

  func clearEvents() { events.removeAll() }

  /// Evaluates `expression` in the page; its value (returned by value).
  @discardableResult
  func evaluate(_ expression: String) throws -> Any? {
    let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
    if let exception = result["exceptionDetails"] { throw Failure(description: "\(expression): \(exception)") }
    return (result["result"] as? [String: Any])?["value"]
  }

  /// Runs `action` (which navigates: a link, a form) and waits until the new page has loaded.
  func navigating(timeout: Double = 30, _ action: () throws -> Void) throws {
    clearEvents()
    try action()
    try waitForEvent("Page.loadEventFired", timeout: timeout)
  }

  func goTo(_ url: String) throws {
    try navigating { try call("Page.navigate", ["url": url]) }
  }

  /// The whole page (its full height) as PNG bytes.
  func screenshot() throws -> Data {
    let metrics = try call("Page.getLayoutMetrics")
    let size = metrics["cssContentSize"] as? [String: Any] ?? [:]
    let height = Int((size["height"] as? Double) ?? 900)
    let width = Int((size["width"] as? Double) ?? 1280)
    try call(
      "Emulation.setDeviceMetricsOverride",
      ["width": max(width, 1280), "height": min(height, 6_000), "deviceScaleFactor": 1, "mobile": false])
    let shot = try call("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": false])
    guard let base64 = shot["data"] as? String, let data = Data(base64Encoded: base64) else {
      throw Failure(description: "no screenshot")
    }
    return data
  }

  /// Closes the browser (Browser.close, then SIGKILL if it lingers) and reaps it.
  func close() {
    _ = try? call("Browser.close", onPage: false, timeout: 5)
    var status: Int32 = 0
    for _ in 0..<50 {
      if waitpid(processIdentifier, &status, WNOHANG) == processIdentifier {
        closePipes()
        return
      }
      usleep(100_000)
    }
    kill(processIdentifier, SIGKILL)
    waitpid(processIdentifier, &status, 0)
    closePipes()
  }

  private var pipesClosed = false
  private func closePipes() {
    guard !pipesClosed else { return }
    pipesClosed = true
    Glibc.close(toBrowser)
    Glibc.close(fromBrowser)
  }

  /// The next message from the browser; events are kept (and request URLs noted) on the way.
  private func nextMessage(until deadline: Date, waitingFor what: String) throws -> [String: Any] {
    while true {
      if let end = pending.firstIndex(of: 0) {
        let bytes = Array(pending[..<end])
        pending.removeSubrange(...end)
        guard let message = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { continue }
        if let method = message["method"] as? String {
          let params = message["params"] as? [String: Any] ?? [:]
          if method == "Network.requestWillBeSent", let request = params["request"] as? [String: Any],
            let url = request["url"] as? String
          {
            requestedURLs.append(url)
          }
          events.append((method, params))
        }
        return message
      }
      let wait = Int32(max(0, deadline.timeIntervalSinceNow * 1_000))
      var ready = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
      guard wait > 0, poll(&ready, 1, wait) > 0 else {
        throw Failure(description: "no answer from the browser in time (waiting for \(what))")
      }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let count = read(fromBrowser, &chunk, chunk.count)
      guard count > 0 else { throw Failure(description: "the browser closed its pipe (waiting for \(what))") }
      pending += chunk[..<count]
    }
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), not in Swift's Glibc module.
  private static let addCloseFrom:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
      else { return nil }
      return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
