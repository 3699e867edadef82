import AppStore
import ArgumentParser
import Foundation
import TollgateCrypto

/// Input handling shared by the `inspect` subcommands.
enum InspectInput {
  struct Unreadable: Error {
    var message: String
  }

  /// Reads a file (or stdin for `-`), trimmed.
  static func read(_ path: String) throws -> String {
    let data: Data?
    if path == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      data = FileManager.default.contents(atPath: path)
    }
    guard let data, let text = String(data: data, encoding: .utf8) else {
      throw Unreadable(message: "cannot read \(path)")
    }
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw Unreadable(message: "\(path) is empty") }
    return trimmed
  }

  /// The file's exact bytes (or stdin's for `-`), untrimmed: a signature covers them as they are.
  static func readBytes(_ path: String) throws -> [UInt8] {
    let data =
      path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
    guard let data else { throw Unreadable(message: "cannot read \(path)") }
    guard !data.isEmpty else { throw Unreadable(message: "\(path) is empty") }
    return Array(data)
  }

  /// The certificate in a PEM file; unreadable unless it holds one.
  static func certificate(pemFile path: String) throws -> Certificate {
    let text = try read(path)
    do {
      return try Certificate(pem: text)
    } catch {
      throw Unreadable(message: "\(path): not a PEM certificate (\(error))")
    }
  }

  /// Prints the document and exits 0 (valid) or 1 (invalid) as `inspect` says; unreadable input
  /// exits 2. For documents whose nested members carry verdicts of their own.
  static func exitWithVerdict(_ inspect: () throws -> (document: String, isValid: Bool)) throws {
    let result: (document: String, isValid: Bool)
    do {
      result = try inspect()
    } catch let error as Unreadable {
      FileHandle.standardError.write(Data("tollgate inspect: \(error.message)\n".utf8))
      throw ExitCode(2)
    }
    print(result.document)
    if !result.isValid { throw ExitCode(1) }
  }

  /// Prints the document and exits 0 (valid) or 1 (invalid); unreadable input exits 2.
  static func exitWith(_ inspect: () throws -> String) throws {
    let document: String
    do {
      document = try inspect()
    } catch let error as Unreadable {
      FileHandle.standardError.write(Data("tollgate inspect: \(error.message)\n".utf8))
      throw ExitCode(2)
    }
    print(document)
    if !document.contains("\"verdict\" : \"valid\"") { throw ExitCode(1) }
  }

  /// What the payload of `text` says about itself; unreadable unless `text` is a compact JWS
  /// whose payload is JSON.
  static func facts(ofJWS text: String) throws -> PayloadFacts {
    switch JWS.parse(text) {
    case .failure(let error):
      throw Unreadable(message: "not a compact JWS: \(error.message)")
    case .success(let jws):
      guard let payload = try? JSONSerialization.jsonObject(with: Data(jws.payload)) else {
        throw Unreadable(message: "the JWS payload is not JSON")
      }
      return PayloadFacts(payload: payload)
    }
  }

  /// The signed payload of a notification (the `signedPayload` of a JSON body, or the text
  /// itself when it is a compact JWS) and its facts; unreadable otherwise.
  static func notificationJWS(in text: String) throws -> (jws: String, facts: PayloadFacts) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
      return (text, try facts(ofJWS: text))
    }
    guard let signed = (object as? [String: Any])?["signedPayload"] as? String else {
      throw Unreadable(message: "a JSON body without a signedPayload string")
    }
    return (signed, try facts(ofJWS: signed))
  }

  /// Unreadable unless `text` is base64 of a PKCS#7 app receipt (signed or not by anyone).
  static func requireReceipt(_ text: String) throws {
    guard let der = Base64.decode(text, ignoringWhitespace: true) else { throw Unreadable(message: "not base64") }
    guard AppReceiptVerifier.parseUnverified(der: der) != nil else {
      throw Unreadable(message: "not a PKCS#7 app receipt")
    }
  }

  /// What the payload says about itself, used for defaults; nothing here is trusted.
  struct PayloadFacts {
    var bundleId: String?
    var appAppleId: Int64?
    var environment: AppStoreEnvironment?
    var kind: AppStoreInspection.Kind = .transaction

    /// From a JWS payload decoded as JSON.
    init(payload: Any) {
      guard let object = payload as? [String: Any] else { return }
      let data = (object["data"] as? [String: Any]) ?? (object["summary"] as? [String: Any]) ?? object
      bundleId = data["bundleId"] as? String
      appAppleId = (data["appAppleId"] as? NSNumber)?.int64Value
      environment = ((data["environment"] ?? data["receiptType"]) as? String).flatMap(
        AppStoreEnvironment.init(rawValue:))
      if object["notificationType"] != nil {
        kind = .notification
      } else if object["receiptType"] != nil {
        kind = .appTransaction
      } else if object["transactionId"] == nil, object["autoRenewStatus"] != nil || object["autoRenewProductId"] != nil
      {
        kind = .renewalInfo
      }
    }
  }
}
