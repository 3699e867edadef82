import Synchronization
import TollgateCrypto

/// The virtual now as last published by the simulator's lock holder, readable without the lock:
/// a Pub/Sub push retried in real time mints its token at the virtual moment of the attempt.
final class VirtualNowMirror: Sendable {
  private let nowMs: Atomic<Int64>

  init(_ nowMs: Int64) { self.nowMs = Atomic(nowMs) }

  func publish(_ ms: Int64) { nowMs.store(ms, ordering: .relaxed) }

  /// The virtual now (it stands still between advances).
  var currentMs: Int64 { nowMs.load(ordering: .relaxed) }
}

/// Mints the Google-signed OIDC ID token a Pub/Sub push subscription with authentication sends
/// (`Authorization: Bearer …`): issuer `https://accounts.google.com`, the subscription's audience,
/// its service account as `email` (verified), `sub`/`azp` its numeric id, valid one hour.
struct GooglePushToken: Sendable {
  let key: RSAPrivateKey
  let kid: String
  let audience: String
  let email: String
  let clock: StoreSimulator.PushTokenClock
  let virtualNow: VirtualNowMirror

  /// A fresh token, issued now on the configured clock.
  func mint() -> String {
    let nowMs = clock == .virtual ? virtualNow.currentMs : NotificationDispatcher.realNowMs()
    let iat = nowMs / 1000
    let subject = GoogleCredentials.pushSubject(email)
    let claims: [String: Any] = [
      "iss": "https://accounts.google.com", "aud": audience, "azp": subject, "sub": subject, "email": email,
      "email_verified": true, "iat": iat, "exp": iat + 3600,
    ]
    return GoogleJWT.sign(claims: claims, kid: kid, key: key)
  }
}
