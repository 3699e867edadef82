import Synchronization
import TollgateCrypto

/// The virtual now as last published by the simulator's lock holder, readable without the lock:
/// a Pub/Sub push retried in real time mints its token at the virtual moment of the attempt.
///
/// It also knows whether other processes follow the clock over HTTP (`GET /sim/clock`, polled
/// every 100 ms): a push token minted right after a jump would look issued in the future to a
/// follower that has not polled yet, so minting first lets such followers catch up.
final class VirtualNowMirror: Sendable {
  private struct State {
    var nowMs: Int64
    /// When (real time) the virtual clock was set or last moved.
    var changedAtRealMs: Int64
    var polledAtRealMs: Int64?
  }

  /// The longest a push waits after a jump for a follower to poll.
  static let followerCatchUpMs: Int64 = 1_000
  /// A follower is one that polled this recently.
  static let followerWindowMs: Int64 = 2_000
  private let state: Mutex<State>

  init(_ nowMs: Int64) { state = Mutex(State(nowMs: nowMs, changedAtRealMs: NotificationDispatcher.realNowMs())) }

  func publish(_ ms: Int64) {
    let real = NotificationDispatcher.realNowMs()
    state.withLock { state in
      if state.nowMs != ms { state.changedAtRealMs = real }
      state.nowMs = ms
    }
  }

  /// The virtual now (it stands still between advances).
  var currentMs: Int64 { state.withLock { $0.nowMs } }

  /// The virtual now, and the now its followers read: the virtual now plus the real time since it
  /// last moved (`FollowedClock`), the same for every follower whenever it started.
  var reading: (nowMs: Int64, followedNowMs: Int64) {
    let real = NotificationDispatcher.realNowMs()
    return state.withLock { ($0.nowMs, $0.nowMs + max(0, real - $0.changedAtRealMs)) }
  }

  /// A follower read the clock (`GET /sim/clock`).
  func polled() { state.withLock { $0.polledAtRealMs = NotificationDispatcher.realNowMs() } }

  /// Waits until a follower polling over HTTP has read the clock since the last jump (at most
  /// `followerCatchUpMs` after the jump, however loaded the machine; no wait when nobody follows).
  func letFollowersCatchUp() async {
    while true {
      let real = NotificationDispatcher.realNowMs()
      let waiting = state.withLock { state -> Bool in
        guard let polled = state.polledAtRealMs, real - polled < Self.followerWindowMs else { return false }
        let changed = state.changedAtRealMs
        return polled < changed && real < changed + Self.followerCatchUpMs
      }
      guard waiting else { return }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }
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
  func mint() async -> String {
    if clock == .virtual { await virtualNow.letFollowersCatchUp() }
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
