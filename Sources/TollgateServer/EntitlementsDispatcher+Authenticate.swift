import CTollgateNet
import Logging
import NIOCore
import TollgateCallers
import TollgateContract
import TollgateCore

extension EntitlementsDispatcher {
  /// The longest Authenticate payload read: a configured caller's name is at most 128 bytes and a
  /// key a few dozen, so anything longer is a failure whose bytes are never decoded.
  static let maximumAuthenticateLength = 4_096

  /// Checks a caller's name and key, unless its source (`AuthenticationLimiter`) has used up its
  /// failures: then the call is answered RESOURCE_EXHAUSTED, nothing of it decoded and the key not
  /// checked, and the connection is closed. After `maximumFailedAuthentications` failures on one
  /// connection (a success in between resets nothing) it is closed once the answer is written.
  /// Throws when a payload on a server without callers does not decode.
  func authenticate(
    _ payload: ByteBuffer, caller: inout ConnectionCaller
  ) throws -> Tollgate_V1_AuthenticateResponse {
    var response = Tollgate_V1_AuthenticateResponse()
    guard case .callers(let registry) = access else {
      // No callers configured: every connection may call everything already.
      _ = try Tollgate_V1_AuthenticateRequest(serializedBytes: payload.readableBytesSpan)
      response.scopes = CallerScopes.all.names
      return response
    }
    let source = caller.peerSource()
    // Too long to be any caller's, or undecodable: a failure like a wrong key (no caller has an
    // empty name). Decoded only once the gate has let the source try.
    let request =
      gate.authenticationLimiter.mayAttempt(source).allowed && payload.readableBytes <= Self.maximumAuthenticateLength
      ? try? Tollgate_V1_AuthenticateRequest(serializedBytes: payload.readableBytesSpan) : nil
    let key: CallerKey
    switch gate.authenticate(name: request?.caller ?? "", key: request?.key ?? "", source: source) {
    case .success(let authenticated): key = authenticated
    case .failure(let refusal):
      if case .sourceBlocked = refusal.kind {
        caller.mustClose = true
        sampledWarning(
          "authentication refused: too many failures from the source", key: "authenticate|refused", caller: nil,
          source: source)
        response.error = Tollgate_V1_Error(.resourceExhausted, refusal.message)
        return response
      }
      caller.failedAttempts += 1
      if caller.failedAttempts >= maximumFailedAuthentications { caller.mustClose = true }
      sampledWarning(
        "authentication failed", key: "authenticate|failed", caller: request?.caller, source: source,
        requestBytes: payload.readableBytes)
      response.error = Tollgate_V1_Error(.unauthenticated, refusal.message)
      return response
    }
    caller.key = key
    caller.generation = registry.generation
    caller.identity = CallerIdentity(name: key.name, scopes: key.scopes)
    response.caller = key.name
    response.scopes = key.scopes.names
    return response
  }

  /// A warning sampled under `key` (a kind of failure or a configured caller, never what a
  /// stranger sent); the caller's name is logged escaped and truncated (`StrangerText`).
  func sampledWarning(
    _ message: Logger.Message, key: String, caller: String?, source: PeerSource? = nil, requestBytes: Int? = nil
  ) {
    let nowMs = Int64(tg_net_now_ns() / 1_000_000)
    let (log, skipped) = logSampler.admit(key, nowMs: nowMs)
    guard log else { return }
    var metadata: Logger.Metadata = [:]
    if let caller { metadata["rpc.caller"] = "\(StrangerText.loggable(caller))" }
    if let source { metadata["rpc.source"] = "\(source)" }
    if let requestBytes { metadata["rpc.request_bytes"] = "\(requestBytes)" }
    if skipped > 0 { metadata["log.skipped"] = "\(skipped)" }
    logger.warning(message, metadata: metadata)
  }
}
