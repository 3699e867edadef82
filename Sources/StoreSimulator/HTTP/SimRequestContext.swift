import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the request's connection, so that a fault can hold
/// the connection without answering or close it without an answer (`stall`, `reset`).
struct SimRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }
}
