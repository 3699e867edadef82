// The support console (issue 29): server-rendered pages under /console on serve's HTTP door.
// Placeholder until the routes land; the module exists so the console's parts can be built at once.

/// The support console's module.
public enum TollgateConsoleModule {
  /// The path every console route lives under.
  public static let pathPrefix = "/console"
}
