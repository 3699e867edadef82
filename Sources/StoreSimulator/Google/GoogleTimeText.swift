/// Google's RFC 3339 timestamps, UTC with milliseconds (`2026-01-08T00:00:00.000Z`), as the
/// Android Publisher API and Pub/Sub write them. Only used at the edge: times are ms inside.
enum GoogleTimeText {
  static func rfc3339(_ ms: Int64) -> String {
    let t = CivilTime(ms: ms)
    let pad = CivilTime.pad
    return "\(pad(t.year, 4))-\(pad(t.month, 2))-\(pad(t.day, 2))T\(pad(t.hour, 2)):\(pad(t.minute, 2)):"
      + "\(pad(t.second, 2)).\(pad(t.millisecond, 3))Z"
  }
}
