import TollgateCallers

/// The caller of the gRPC call being handled: `CallerInterceptor` sets it around the rest of the
/// call once the gate has let the caller in, and `EntitlementsGRPCService` reads it. A task-local
/// works for unary methods because the generated adapter reads the request and awaits the
/// handler inside the interceptor's `next` (`TaskLocalIdentityTests` pins that); nil outside a
/// checked call, which the service refuses.
enum CallerContext {
  @TaskLocal static var identity: CallerIdentity?
}
