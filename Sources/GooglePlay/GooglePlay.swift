/// Google Play's formats and APIs, as `AppStore` is Apple's: the Android Publisher API v3 models
/// and client, Real-time developer notifications over Cloud Pub/Sub push (with their OIDC
/// authentication), the service account's OAuth token, Play Billing signatures, and the mapping
/// to Core. It knows nothing of the worker.
public enum GooglePlay {
  /// The OAuth scope of the Android Publisher API.
  public static let androidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"
}
