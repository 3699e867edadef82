import Foundation
import SwiftProtobuf
import Testing
import TollgateContract

/// `Tollgate_V1_ErrorCode.name`, the one `ERROR_CODE_…` writer the gRPC door (`tollgate-error-code`)
/// and the HTTP door (a problem document's `code`) both use.
@Suite("ErrorCode names: proto/tollgate.proto's, as the proto3 JSON mapping writes them")
struct ErrorCodeNameTests {
  /// `NAME = N;` of `enum ErrorCode` in proto/tollgate.proto.
  static func protoNames() throws -> [Int: String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let proto = try String(contentsOf: root.appendingPathComponent("proto/tollgate.proto"), encoding: .utf8)
    let body = try #require(proto.components(separatedBy: "enum ErrorCode {").dropFirst().first)
    var names: [Int: String] = [:]
    for line in body.prefix(while: { $0 != "}" }).split(separator: "\n") {
      let parts = line.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
      guard parts.count == 2, let number = Int(parts[1].dropLast()) else { continue }
      names[number] = parts[0]
    }
    return names
  }

  @Test("every case has its name in proto/tollgate.proto", arguments: Tollgate_V1_ErrorCode.allCases)
  func named(_ code: Tollgate_V1_ErrorCode) throws {
    let names = try Self.protoNames()
    #expect(names.count == Tollgate_V1_ErrorCode.allCases.count, "\(names)")
    #expect(code.name == names[code.rawValue])
    #expect(code.name.hasPrefix("ERROR_CODE_"))
    // The JSON mapping writes the same name (it leaves out the default, UNSPECIFIED).
    if code != .unspecified { #expect(try Tollgate_V1_Error(code, "").jsonString() == "{\"code\":\"\(code.name)\"}") }
  }

  @Test("a value this build does not know is its number, as the JSON mapping writes it")
  func unrecognized() throws {
    let code = Tollgate_V1_ErrorCode(rawValue: 42)
    #expect(code == .UNRECOGNIZED(42))
    #expect(code?.name == "42")
    #expect(try Tollgate_V1_Error(.UNRECOGNIZED(42), "").jsonString() == "{\"code\":42}")
  }
}
