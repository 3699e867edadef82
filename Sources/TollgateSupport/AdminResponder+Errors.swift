import TollgateContract
import TollgateCore
import TollgateWorker

/// Request checks and the one mapping of the support desk's errors to `Tollgate_V1_Error`
/// (design 3.3): every door turns that into its own status (fast port field, gRPC status, HTTP
/// problem document).
extension AdminResponder {
  /// What to answer for `error`, thrown while serving `method`. Storage trouble is UNAVAILABLE
  /// with a generic sentence (its text can hold SQL or a server's address): it is logged here.
  func answer(_ error: any Error, _ method: String) -> Tollgate_V1_Error {
    switch error {
    case let refusal as AdminError:
      return Tollgate_V1_Error(.invalidArgument, refusal.description)
    case let support as SupportError:
      switch support.code {
      case .invalidIdentifier, .invalidArgument: return Tollgate_V1_Error(.invalidArgument, support.message)
      case .unknownUser, .nothingToRevoke: return Tollgate_V1_Error(.notFound, support.message)
      case .noCatalog, .orderLookupUnavailable: return Tollgate_V1_Error(.unavailable, support.message)
      }
    case let conflict as StorageConflict:
      logger.warning(
        "an admin write met a concurrent write", metadata: ["rpc.method": "\(method)", "error": "\(conflict.kind)"])
      return Tollgate_V1_Error(.unavailable, "another write of this user's data came first; retry")
    case is CancellationError:
      return Tollgate_V1_Error(.unavailable, "the call was cancelled (the server is shutting down); retry")
    default:
      logger.error("an admin call failed in storage", metadata: ["rpc.method": "\(method)", "error": "\(error)"])
      return Tollgate_V1_Error(.unavailable, "the database could not be read or written; retry")
    }
  }

  static func problem(userId: String) -> Tollgate_V1_Error? {
    UserIdLimits.problem(userId).map { Tollgate_V1_Error(.invalidArgument, $0) }
  }

  static func problem(entitlement: String) -> Tollgate_V1_Error? {
    EntitlementNameLimits.problem(entitlement).map { Tollgate_V1_Error(.invalidArgument, $0) }
  }

  static func problem(note: String) -> Tollgate_V1_Error? {
    note.utf8.count > SupportDesk.maximumNoteBytes
      ? Tollgate_V1_Error(.invalidArgument, "note is longer than \(SupportDesk.maximumNoteBytes) bytes") : nil
  }

  /// `requested_by` names a person in the event: at most 256 bytes, no control characters.
  static func problem(requestedBy: String) -> Tollgate_V1_Error? {
    if requestedBy.utf8.count > maximumRequestedByBytes {
      return Tollgate_V1_Error(.invalidArgument, "requested_by is longer than \(maximumRequestedByBytes) bytes")
    }
    if requestedBy.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      return Tollgate_V1_Error(.invalidArgument, "requested_by holds a control character")
    }
    return nil
  }

  /// Text a caller sent, escaped and cut for an error message.
  static func quoted(_ text: String) -> String { "\"\(StrangerText.loggable(text))\"" }
}
