import Foundation

/// Strict config files: a key no command reads is an error that names it, so a typo
/// (`worker.listne`) is never silently ignored while its setting falls back to a default.
///
/// The known keys are the ones the settings types ask for while they decode (each `Decodable`'s
/// `init(from:)`, synthesized or written out): `read(_:section:)` decodes a section of the parsed
/// file with a decoder that records every key asked for (`decode`, `decodeIfPresent`,
/// `contains`), and `problems` lists every key present in what was read and never asked for,
/// with its full path (`worker.listne is not a known key`, `appStore[0].bundleID is not a known
/// key`). Nothing is kept in a second list beside the types, so it cannot drift from them.
///
/// At the top level of the file only the sections in `knownSections` may appear: a section some
/// other command reads (`service` while the worker runs) is allowed, and is checked by that
/// command.
///
/// A section whose values do not decode (a wrong type) is left to the real decoder's error: its
/// keys are not judged.
///
/// ```swift
/// // `serve`, for its `service` section:
/// let keys = try ConfigKeys(json: data)
/// keys.read(ServeSettings.self, section: "service")
/// let problems = keys.problems  // ["service.listne is not a known key"]
/// ```
public struct ConfigKeys {
  /// Every top-level section of the config file, and the command that reads it.
  public static let knownSections: [String: String] = [
    "service": "serve", "worker": "worker", "webhooks": "worker", "appStore": "worker", "googlePlay": "worker",
    "amazon": "worker", "apps": "all", "entitlements": "all", "products": "all", "subscriptionGroups": "all",
    "gracePolicy": "all", "transferPolicy": "all", "accessLevels": "all",
  ]

  private let root: ConfigNode

  /// Parses a config file's JSON; throws when it is not JSON or not an object.
  public init(json data: Data) throws(WorkerConfigurationError) {
    let tree: ConfigTree
    do {
      tree = try JSONDecoder().decode(ConfigTree.self, from: data)
    } catch let error as DecodingError {
      throw WorkerConfigurationError(problems: ["the file is not JSON: \(error.readablePath)"])
    } catch {
      throw WorkerConfigurationError(problems: ["the file is not JSON: \(error)"])
    }
    guard case .object = tree.node.value else {
      throw WorkerConfigurationError(problems: ["the file must hold a JSON object"])
    }
    root = tree.node
  }

  /// Records the keys `type` reads from `section` (a top-level key), or from the whole file when
  /// `section` is nil (the catalog sits at the top level). Does nothing when the file has no such
  /// section. Returns whether `type` decoded: if not, the real decoder reports why.
  @discardableResult
  public func read<T: Decodable>(_ type: T.Type, section: String? = nil) -> Bool {
    var node = root
    var path: [any CodingKey] = []
    if let section {
      root.opened = true
      root.read.insert(section)
      guard case .object(let children) = root.value, let child = children[section] else { return true }
      node = child
      path = [ConfigKey(section)]
    }
    let scratch = ConfigNode(node)
    do {
      _ = try T(from: RecordingDecoder(node: scratch, codingPath: path))
    } catch {
      return false
    }
    node.merge(reads: scratch)
    return true
  }

  /// Every key present and never read, with its path; top-level keys not in `knownSections`
  /// and not read by anything. Sorted by path.
  public var problems: [String] {
    guard case .object(let children) = root.value else { return [] }
    var problems: [String] = []
    for key in children.keys.sorted() {
      if root.read.contains(key) {
        problems += children[key]!.unknownKeys(path: key)
      } else if Self.knownSections[key] == nil {
        problems.append("\(key) is not a known key")
      }
    }
    return problems
  }
}

@available(*, unavailable)
extension ConfigKeys: Sendable {}

/// A parsed JSON value that remembers which of its keys a decoder asked for.
final class ConfigNode {
  enum Value {
    case object([String: ConfigNode])
    case array([ConfigNode])
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
  }

  let value: Value
  /// Decoded as a keyed container: its unread keys are unknown.
  var opened = false
  var read: Set<String> = []

  init(_ value: Value) {
    self.value = value
  }

  /// A fresh copy with nothing read, so that a decode that fails leaves no marks.
  convenience init(_ other: ConfigNode) {
    switch other.value {
    case .object(let children): self.init(.object(children.mapValues { ConfigNode($0) }))
    case .array(let items): self.init(.array(items.map { ConfigNode($0) }))
    default: self.init(other.value)
    }
  }

  /// Adds the reads recorded on `copy` (made by `init(_:)` from this node).
  func merge(reads copy: ConfigNode) {
    opened = opened || copy.opened
    read.formUnion(copy.read)
    switch (value, copy.value) {
    case (.object(let mine), .object(let theirs)):
      for (key, child) in mine { theirs[key].map(child.merge(reads:)) }
    case (.array(let mine), .array(let theirs)):
      for (child, copy) in zip(mine, theirs) { child.merge(reads: copy) }
    default: break
    }
  }

  func unknownKeys(path: String) -> [String] {
    switch value {
    case .object(let children):
      guard opened else { return [] }
      return children.keys.sorted().flatMap { key in
        read.contains(key) ? children[key]!.unknownKeys(path: "\(path).\(key)") : ["\(path).\(key) is not a known key"]
      }
    case .array(let items):
      return items.enumerated().flatMap { index, item in item.unknownKeys(path: "\(path)[\(index)]") }
    default:
      return []
    }
  }
}

/// JSON parsed into `ConfigNode`s (by `JSONDecoder`, which tells booleans from numbers).
private struct ConfigTree: Decodable {
  let node: ConfigNode

  init(from decoder: any Decoder) throws {
    if let object = try? decoder.container(keyedBy: ConfigKey.self) {
      var children: [String: ConfigNode] = [:]
      for key in object.allKeys { children[key.stringValue] = try object.decode(ConfigTree.self, forKey: key).node }
      node = ConfigNode(.object(children))
    } else if var array = try? decoder.unkeyedContainer() {
      var items: [ConfigNode] = []
      while !array.isAtEnd { items.append(try array.decode(ConfigTree.self).node) }
      node = ConfigNode(.array(items))
    } else {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        node = ConfigNode(.null)
      } else if let bool = try? single.decode(Bool.self) {
        node = ConfigNode(.bool(bool))
      } else if let integer = try? single.decode(Int64.self) {
        node = ConfigNode(.integer(integer))
      } else if let number = try? single.decode(Double.self) {
        node = ConfigNode(.number(number))
      } else {
        node = ConfigNode(.string(try single.decode(String.self)))
      }
    }
  }
}

/// Any key of a JSON object, or an array index.
struct ConfigKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(_ string: String) {
    stringValue = string
  }

  init(stringValue: String) {
    self.stringValue = stringValue
  }

  init(intValue: Int) {
    stringValue = "\(intValue)"
    self.intValue = intValue
  }
}
