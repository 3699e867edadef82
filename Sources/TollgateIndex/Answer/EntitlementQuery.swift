/// One "is this user entitled to this entitlement?" question, as the UTF-8 bytes of its two ids
/// where they lie (a request's own bytes, not copied). Valid only during the call it is passed to.
public struct EntitlementQuery {
  public var userId: UnsafeRawBufferPointer
  public var entitlement: UnsafeRawBufferPointer

  public init(userId: UnsafeRawBufferPointer, entitlement: UnsafeRawBufferPointer) {
    self.userId = userId
    self.entitlement = entitlement
  }
}
