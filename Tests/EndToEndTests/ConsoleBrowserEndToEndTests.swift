import Foundation
import Testing
import TollgateTesting

/// The support console in a real browser (issue 29): `tollgate demo` (the simulator, the worker
/// and the service with its HTTP door and console, the demo users bought and verified) as a
/// process, and Debian's headless Chromium driven over the DevTools protocol. It signs in with
/// the demo's admin key, searches the demo's App Store, Google Play and Amazon users by their
/// store ids, reads what each page shows, grants an entitlement and sees it. With
/// `TOLLGATE_CONSOLE_SCREENSHOT=1` it also writes the user page's screenshot to
/// docs/console-user.png.
///
/// Without `chromium` on PATH it is skipped, unless the environment requires it
/// (`TOLLGATE_REQUIRE_BROWSER=1`, which scripts/test sets, or `CI`): then it fails saying so.
@Suite(.serialized) struct ConsoleBrowserEndToEndTests {
  static let environment = ProcessInfo.processInfo.environment
  static let browserRequired =
    environment["TOLLGATE_REQUIRE_BROWSER"] == "1" || !(environment["CI"] ?? "").isEmpty
  static let runs = HeadlessChromium.executable != nil || browserRequired

  @Test(
    "a browser signs in, finds the demo's Apple, Google and Amazon users by store id, reads their pages, and grants",
    .enabled(
      if: runs,
      "chromium is not installed (scripts/install-deps installs it) and TOLLGATE_REQUIRE_BROWSER is not set: skipped"),
    .timeLimit(.minutes(3)))
  func consoleInBrowser() async throws {
    guard let executable = HeadlessChromium.executable else {
      Issue.record("chromium is not on PATH, and this run requires the browser test: run scripts/install-deps")
      return
    }
    let dir = try TemporaryDirectory(prefix: "tollgate-console")
    defer { dir.remove() }
    let profile = dir.file("chromium")
    try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
    let demo = try await DemoProcess.start(in: dir)
    let key =
      (try? String(contentsOfFile: dir.file("admin-key"), encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    guard key.hasPrefix("tgk_"), demo.announcement.contains(key) else {
      Issue.record("the demo wrote no admin key to DATA/admin-key, or did not print it: \(demo.announcement)")
      await demo.stop()
      return
    }

    let consoleURL = demo.consoleURL
    let storeIds = demo.storeIds
    let outcome = await offPool { () -> Result<(problems: [String], urls: [String]), HeadlessChromium.Failure> in
      let browser: HeadlessChromium
      do {
        browser = try HeadlessChromium(executable: executable, profile: profile)
      } catch {
        return .failure(.init(description: "\(error)"))
      }
      defer { browser.close() }
      let checks = Checks()
      do {
        try Self.drive(browser, console: consoleURL, key: key, users: storeIds, checks)
      } catch {
        checks.that(false, "\(error)")
      }
      return .success((checks.problems, browser.requestedURLs))
    }
    let log = await demo.stop()
    let (problems, requestedURLs) = try outcome.get()
    for problem in problems { Issue.record(Comment(rawValue: problem)) }

    // The key went only in a POST body: no URL the browser asked for holds it, and the demo's
    // log does not either.
    #expect(!requestedURLs.isEmpty)
    for url in requestedURLs { #expect(!url.contains(key), "\(url)") }
    #expect(log.contains("console sign-in"))
    #expect(!log.contains(key))
  }

  /// Everything the browser does, in order.
  /// Runs off the cooperative pool, so it notes what it finds wrong in `checks` for the test to
  /// record.
  static func drive(
    _ browser: HeadlessChromium, console: String, key: String, users: [String: String], _ checks: Checks
  ) throws {
    // Not signed in: the console sends the browser to its sign-in page.
    try browser.goTo(console)
    checks.that(try browser.evaluate("location.pathname") as? String == "/console/sign-in")
    try browser.navigating {
      try browser.evaluate(
        """
        document.getElementById('key').value = \(quoted(key));
        document.getElementById('operator').value = 'Browser Test';
        document.querySelector('form[action="/console/sign-in"] button').click();
        """)
    }
    checks.that(try browser.evaluate("location.pathname") as? String == "/console/search")
    checks.that(try browser.evaluate("document.getElementById('caller').textContent") as? String == "demo-admin")
    let cookies = try browser.call("Network.getCookies")["cookies"] as? [[String: Any]] ?? []
    let session = cookies.first { $0["name"] as? String == "tollgate_session" }
    checks.that(session?["httpOnly"] as? Bool == true)
    checks.that(session?["sameSite"] as? String == "Strict")
    checks.that(session?["path"] as? String == "/console")

    // Each store's user by the store id a customer would quote.
    let searches: [(user: String, store: String)] = [
      ("demo-expired", "App Store"), ("demo-google-upgraded", "Google Play"), ("demo-amazon-active", "Amazon Appstore"),
    ]
    for (user, store) in searches {
      guard let storeId = users[user] else {
        checks.that(false, "the demo printed no store id for \(user)")
        continue
      }
      try search(browser, storeId)
      checks.that(try browser.evaluate("location.pathname") as? String == "/console/user", "\(user) by \(storeId)")
      checks.that(try browser.evaluate("document.getElementById('user-id').textContent") as? String == user)
      let text = try browser.evaluate("document.body.innerText") as? String ?? ""
      checks.that(text.contains(store), "\(user)'s page names no \(store)")
      checks.that(text.contains("Entitlements now, and why"))
      checks.that(
        try browser.evaluate("document.querySelectorAll('svg').length") as? Int ?? 0 > 0, "\(user): no timeline")
      let premium =
        try browser.evaluate(
          "document.querySelector('[data-entitlement=\"premium\"] h3').textContent") as? String ?? ""
      checks.that(premium.contains(user == "demo-expired" ? "not entitled" : "entitled"), "\(user): \(premium)")
    }
    // The Google user upgraded from basic to premium: its page draws the plan change.
    try search(browser, users["demo-google-upgraded"] ?? "")
    if environment["TOLLGATE_CONSOLE_SCREENSHOT"] == "1" {
      let png = try browser.screenshot()
      try png.write(
        to: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
          .appendingPathComponent("../../docs/console-user.png").standardized)
    }

    // A grant with a note, through the page's form: the page then shows it.
    try search(browser, users["demo-expired"] ?? "")
    try browser.navigating {
      try browser.evaluate(
        """
        const form = document.getElementById('grant');
        form.querySelector('select[name="entitlement"]').value = 'premium';
        form.querySelector('input[name="days"]').value = '7';
        form.querySelector('input[name="note"]').value = 'goodwill after ticket 4711';
        form.querySelector('button').click();
        """)
    }
    checks.that(
      try browser.evaluate("location.pathname + location.search") as? String == "/console/user?id=demo-expired")
    let flash = try browser.evaluate("document.getElementById('flash').textContent") as? String ?? ""
    checks.that(flash.hasPrefix("Granted premium until"), "\(flash)")
    let premium =
      try browser.evaluate(
        "document.querySelector('[data-entitlement=\"premium\"] h3').textContent") as? String ?? ""
    checks.that(premium.contains("entitled") && !premium.contains("not entitled"), "\(premium)")
    let page = try browser.evaluate("document.body.innerText") as? String ?? ""
    checks.that(page.contains("goodwill after ticket 4711"), "the grant's note is not on the page")
  }

  /// Types `text` in the header's search box and submits it (a GET form).
  static func search(_ browser: HeadlessChromium, _ text: String) throws {
    try browser.navigating {
      try browser.evaluate(
        """
        document.getElementById('q').value = \(quoted(text));
        document.querySelector('form.search button').click();
        """)
    }
  }

  /// `text` as a JavaScript string literal.
  static func quoted(_ text: String) -> String {
    (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "''"
  }

  /// Runs blocking browser work on a Dispatch queue, off the cooperative pool (two threads on
  /// two cores), as `ChildProcess.waitForLine` does.
  func offPool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
  }
}

/// What a check off the cooperative pool found wrong, for the test to record (Swift Testing
/// records issues from the test's task).
final class Checks: @unchecked Sendable {
  // @unchecked Sendable: filled by the one Dispatch block that drives the browser, read after
  // it has finished (the continuation orders the two).
  private(set) var problems: [String] = []

  func that(_ condition: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
    if !condition { problems.append("line \(line): check failed \(message())") }
  }
}
