import Foundation
import TollgateCore

/// One store's section of the worker's config file (`appStore`; `googlePlay` and `amazon` next),
/// owned, decoded and checked by that store's gateway module: the worker knows only this much of it.
public protocol StoreSettings: Sendable {
  /// The section's key in the config file.
  static var sectionKey: String { get }
  var store: Store { get }
  /// Nothing is configured for this store: no gateway is built for it.
  var isEmpty: Bool { get }
  /// Every problem at once, each starting with where it is in the file.
  func problems(catalog: ProductCatalog, environment: [String: String]) -> [String]
}

extension StoreSettings where Self: Decodable {
  /// The section `sectionKey` of a config file's JSON, or nil when the file has none.
  public static func section(in data: Data) throws(WorkerConfigurationError) -> Self? {
    let decoder = JSONDecoder()
    decoder.userInfo[ConfigSection<Self>.keyName] = sectionKey
    do {
      return try decoder.decode(ConfigSection<Self>.self, from: data).value
    } catch let error as DecodingError {
      throw WorkerConfigurationError(problems: [error.readablePath])
    } catch {
      throw WorkerConfigurationError(problems: ["\(sectionKey): \(error)"])
    }
  }
}

/// The value under one top-level key of a JSON object, the key named in the decoder's user info.
private struct ConfigSection<Value: Decodable>: Decodable {
  static var keyName: CodingUserInfoKey { CodingUserInfoKey(rawValue: "tollgate.configSection")! }

  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  var value: Value?

  init(from decoder: any Decoder) throws {
    let name = decoder.userInfo[Self.keyName] as? String ?? ""
    value = try decoder.container(keyedBy: Key.self).decodeIfPresent(Value.self, forKey: Key(stringValue: name))
  }
}
