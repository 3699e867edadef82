/// The CSS of the timeline drawings and the user page's sections, which the console appends to
/// its one stylesheet (`/console/style.css`): the page sends no inline style (its
/// Content-Security-Policy allows none), and the drawings read without it too.
enum UserPageStyle {
  static let css = """
    .timelines figure.timeline { margin: 0 0 1.25rem 0; }
    .timelines figcaption { font-weight: 600; margin-bottom: 0.25rem; overflow-wrap: anywhere; }
    .timelines svg.timeline-svg { display: block; max-width: 960px; height: auto; }
    .timelines .mark a, .timelines a .mark { cursor: pointer; }
    .timelines .timeline-list { font-size: 0.85rem; margin-top: 0.25rem; }
    .timeline-legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
    .timeline-legend li { display: inline-flex; align-items: center; gap: 0.35rem; font-size: 0.85rem; }
    .timeline-zone { color: #566573; font-size: 0.85rem; }
    .entitlement.active h3 strong { color: #1e8449; }
    .entitlement.inactive h3 strong { color: #b03a2e; }
    .entitlements tr.decides { background: #eaf2f8; }
    .entitlements td ul { margin: 0; padding-left: 1rem; }
    .deliveries td.delivery.failing, .deliveries td.delivery.parked { color: #b03a2e; font-weight: 600; }
    .deliveries td.delivery.pending, .deliveries td.delivery.queued { color: #9a7d0a; }
    .deliveries td.delivery.delivered { color: #1e8449; }
    .events code, .entitlements code, .deliveries code { overflow-wrap: anywhere; }
    """
}
