import TollgateCallers

extension RPCServer.Config {
  /// A gate from these settings: `access`, the submission rate per caller and the failed
  /// authentications per source. Build it once and give it to every door, so that they share
  /// the callers and both limits.
  public func makeGate() -> CallerGate {
    CallerGate(
      access: access,
      authenticationLimiter: AuthenticationLimiter(
        perMinute: failedAuthenticationsPerMinutePerSource, burst: failedAuthenticationBurstPerSource,
        maximumSources: authenticationSourcesTracked),
      submitLimiter: SubmitRateLimiter(perSecond: submitsPerSecondPerCaller, burst: submitBurstPerCaller))
  }
}
