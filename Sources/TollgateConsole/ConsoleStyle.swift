import Hummingbird
import NIOCore

/// The console's one stylesheet (`/console/style.css`): plain CSS, no build step. The pages read
/// the same without it.
enum ConsoleStyle {
  static let css = """
    :root { color-scheme: light; --ink: #1d2430; --muted: #5b6474; --line: #d5dae3; --accent: #1f5fbf;
      --done: #1e7b3a; --problem: #b3261e; --paper: #ffffff; --wash: #f5f7fa; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
      color: var(--ink); background: var(--wash); }
    header.top { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; padding: .6rem 1.25rem;
      background: var(--paper); border-bottom: 1px solid var(--line); }
    header.top form { display: flex; gap: .4rem; align-items: center; margin: 0; }
    header.top form.who { margin-left: auto; }
    .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
    main { max-width: 1040px; margin: 1.25rem auto; padding: 0 1.25rem 3rem; }
    main > section, main > h1 + section { background: var(--paper); border: 1px solid var(--line); border-radius: 6px;
      padding: .75rem 1.25rem; margin: 1rem 0; }
    h1 { font-size: 1.35rem; margin: .25rem 0 .75rem; }
    h2 { font-size: 1.1rem; margin: .25rem 0 .5rem; }
    h3 { font-size: 1rem; margin: .75rem 0 .25rem; }
    code { font: 13px/1.3 ui-monospace, "DejaVu Sans Mono", monospace; }
    a { color: var(--accent); }
    label { color: var(--muted); }
    input, select, button { font: inherit; }
    input, select { padding: .2rem .35rem; border: 1px solid var(--line); border-radius: 4px; background: var(--paper); }
    button { padding: .25rem .8rem; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent);
      color: #fff; cursor: pointer; }
    .flash { padding: .5rem .75rem; border-radius: 4px; border: 1px solid; }
    .flash-done { color: var(--done); border-color: var(--done); background: #eef8f1; }
    .flash-problem { color: var(--problem); border-color: var(--problem); background: #fdf0ef; }
    .note, .hint, .evaluated, .timeline-zone { color: var(--muted); }
    table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
    th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
    th { font-weight: 600; color: var(--muted); }
    .entitlement.active h3 strong { color: var(--done); }
    .entitlement.inactive h3 strong { color: var(--problem); }
    section.actions { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: .5rem 1.5rem; }
    section.actions h2 { grid-column: 1 / -1; }
    section.actions form { display: flex; flex-direction: column; gap: .4rem; align-items: flex-start; }
    .timelines svg { width: 100%; height: auto; background: var(--paper); }
    .timelines figure { margin: .75rem 0; }
    .sign-in { max-width: 560px; }
    .sign-in input { width: 100%; }
    """

  static var response: Response {
    var headers = ConsoleHTTP.securityHeaders
    headers[.contentType] = "text/css; charset=utf-8"
    headers[.cacheControl] = "max-age=300"
    // The user page's sections and the timeline drawing bring their own rules.
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: css + "\n" + UserPageStyle.css)))
  }
}
