import Foundation
import Hummingbird
import TollgateCore
import TollgateSupport
import TollgateWorker

/// The console's two reading pages: search, and a user's page.
extension SupportConsole {
  /// GET /console/search?q=…: a user id, or any store identifier (`SupportDesk.lookUp`). One
  /// user found goes straight to their page; several matches are listed.
  func searchPage(_ request: Request, as signedIn: SignedIn) async -> Response {
    let query = (ConsoleHTTP.fields(request.uri.query ?? "")["q"] ?? "").trimmingCharacters(in: .whitespaces)
    let chrome = chrome(signedIn, request: request, query: query)
    let flash = ConsoleLayout.flash(signedIn.session.flash)
    guard !query.isEmpty else {
      return ConsoleHTTP.page(
        ConsoleLayout.page(title: "Search", body: flash + ConsoleSearchPage.empty, chrome: chrome))
    }
    guard let desk = backend.desk() else { return Self.deskUnavailable(chrome) }
    var result = ConsoleSearchPage.Found(query: query)
    if UserIdLimits.problem(query) == nil, (try? await desk.timeline(userId: query)) != nil {
      result.isUser = true
    }
    do {
      let lookup = try await desk.lookUp(query, kind: nil)
      result.matches = lookup.matches
      result.notes = lookup.notes
    } catch let error as SupportError {
      // Not an identifier any store has (or the App Store could not be asked): say so beside
      // what the user id search found.
      result.notes.append(error.message)
    } catch {
      logger.error("console search failed", metadata: ["error": "\(error)"])
      return Self.deskUnavailable(chrome)
    }
    if let only = result.onlyUser { return ConsoleHTTP.redirect(Self.userPath(only)) }
    return ConsoleHTTP.page(
      ConsoleLayout.page(
        title: "Search", body: flash + ConsoleSearchPage.render(result, timeZone: chrome.timeZone), chrome: chrome))
  }

  /// GET /console/user?id=…: the user's page (`SupportDesk.userOverview`), drawn by the user
  /// page's sections and the timeline, with the grant / revoke / re-verify forms.
  func userPage(_ request: Request, as signedIn: SignedIn) async -> Response {
    let userId = ConsoleHTTP.fields(request.uri.query ?? "")["id"] ?? ""
    let chrome = chrome(signedIn, request: request)
    guard let desk = backend.desk() else { return Self.deskUnavailable(chrome) }
    let flash = ConsoleLayout.flash(signedIn.session.flash)
    let forms = ConsoleUserPage.Forms(
      userId: userId, csrfToken: signedIn.session.csrfToken, adminOn: backend.admin() != nil)
    do {
      let overview = try await desk.userOverview(userId: userId)
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "User \(userId)",
          body: flash + ConsoleUserPage.render(overview, forms: forms, timeZone: chrome.timeZone), chrome: chrome))
    } catch let error as SupportError where error.code == .unknownUser {
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "User \(userId)", body: flash + ConsoleUserPage.unknown(userId, forms: forms), chrome: chrome),
        status: .notFound)
    } catch let error as SupportError {
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "User", body: flash + ConsoleLayout.message("Cannot show this user", error.message), chrome: chrome),
        status: .badRequest)
    } catch let error as AdminError {
      return ConsoleHTTP.page(
        ConsoleLayout.page(
          title: "User", body: flash + ConsoleLayout.message("Cannot show this user", "\(error)"), chrome: chrome),
        status: .badRequest)
    } catch {
      logger.error("console user page failed", metadata: ["error": "\(error)"])
      return Self.deskUnavailable(chrome)
    }
  }

  /// 503: the storage cannot be read now.
  static func deskUnavailable(_ chrome: ConsoleLayout.Chrome) -> Response {
    ConsoleHTTP.page(
      ConsoleLayout.page(
        title: "Unavailable",
        body: ConsoleLayout.message(
          "The database cannot be read now",
          "This replica cannot open or read its database for the support pages; retry, or use another replica."),
        chrome: chrome), status: .serviceUnavailable)
  }
}
