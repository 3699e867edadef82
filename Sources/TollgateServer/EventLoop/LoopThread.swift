import CTollgateNet
import Glibc

/// Starts `body` on a new detached thread named `name` (a server loop runs there until shutdown).
enum LoopThread {
  private final class Start: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
      self.name = name
      self.body = body
    }
  }

  static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(RPCServerError) {
    let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
      &thread, nil,
      { argument in
        let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
        tg_net_name_thread(start.name)
        start.body()
        return nil
      }, start)
    guard status == 0 else {
      Unmanaged<Start>.fromOpaque(start).release()
      throw .eventLoopSetupFailed(errno: status)
    }
    pthread_detach(thread)
  }
}
