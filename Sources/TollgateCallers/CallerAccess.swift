/// How a server decides who may call, whatever the door: everyone (no callers configured), or
/// configured callers.
public enum CallerAccess: Sendable {
  case open
  case callers(CallerRegistry)
}
