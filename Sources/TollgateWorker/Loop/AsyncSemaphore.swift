/// Bounds how many store calls are in flight at once.
actor AsyncSemaphore {
  private var permits: Int
  private var waiters: [CheckedContinuation<Void, Never>] = []

  init(permits: Int) {
    self.permits = permits
  }

  func wait() async {
    if permits > 0 {
      permits -= 1
      return
    }
    await withCheckedContinuation { waiters.append($0) }
  }

  func signal() {
    if waiters.isEmpty {
      permits += 1
    } else {
      waiters.removeFirst().resume()
    }
  }
}
