/// The fuzz harnesses: each feeds arbitrary bytes to the production code that reads bytes a
/// stranger can send (RPC frames, store payloads, notification bodies, the config file) and
/// traps when that code crashes or breaks one of the invariants checked here.
///
/// `scripts/fuzz` runs each under libFuzzer (the `TollgateFuzz` executable, built with
/// sanitizers); `FuzzCorpusTests` replays the committed corpus (`Fuzz/corpus/<name>/`) through
/// the same functions. A harness does no I/O and keeps no state between inputs.
public enum FuzzHarness: String, CaseIterable, Sendable {
  /// `RequestFrameDecoder` and `ResponseFrameDecoder` on a byte stream, whole and in pieces.
  case frameDecoder = "frame-decoder"
  /// The IsSubscriber hot path: `EntitlementsDispatcher.scanIsSubscriberRun` and
  /// `IsSubscriberFields(parsing:)`, checked against swift-protobuf's decoding.
  case isSubscriber = "is-subscriber"
  /// A compact JWS: `JWS.parse`, the x5c chain and ES256 signature, the payload models and their
  /// mapping to Core.
  case appleJWS = "apple-jws"
  /// A legacy app receipt (PKCS#7, base64 or DER): `AppReceiptVerifier` and the DER reader.
  case appleReceipt = "apple-receipt"
  /// An App Store Server Notification body, V2 (`{"signedPayload"}`, nested JWS verified) and V1
  /// (shared secret, `unified_receipt`), mapped to Core.
  case appleNotification = "apple-notification"
  /// A Google Play push body: the Pub/Sub envelope, the RTDN in `message.data` (or bare), Core.
  case googleNotification = "google-notification"
  /// An Amazon SNS message: the model, its canonical text, signature verification against a fixed
  /// certificate, the RTN in `Message`.
  case amazonNotification = "amazon-notification"
  /// The worker's config file: `WorkerConfiguration.decode` and checks, and each store's section.
  case config

  /// Runs the harness on one input.
  public func run(_ bytes: [UInt8]) {
    switch self {
    case .frameDecoder: FrameDecoderHarness.run(bytes)
    case .isSubscriber: IsSubscriberHarness.run(bytes)
    case .appleJWS: AppleJWSHarness.run(bytes)
    case .appleReceipt: AppleReceiptHarness.run(bytes)
    case .appleNotification: AppleNotificationHarness.run(bytes)
    case .googleNotification: GoogleNotificationHarness.run(bytes)
    case .amazonNotification: AmazonNotificationHarness.run(bytes)
    case .config: ConfigHarness.run(bytes)
    }
  }
}
