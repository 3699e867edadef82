import Foundation

/// A secret the config file names by a pair of keys, `<key>Env` (an environment variable holding
/// it) and `<key>File` (a file holding it): the one mechanism for every secret of every section
/// (webhook secrets, the stores' shared secrets and API keys). Exactly one of the pair is given.
///
/// A relative `…File` path is read from `$CREDENTIALS_DIRECTORY` when that is set (systemd's
/// `LoadCredential=name:/path` puts the file there as `name`), else from the working directory.
/// A file's trailing line breaks are dropped (`echo secret > file`). Secrets are read at start
/// (validation and the gateways' construction), never while running, and never logged: nothing
/// here puts a secret's value in an error.
///
/// ```swift
/// let secret = ConfigSecret(key: "secret", env: webhook.secretEnv, file: webhook.secretFile)
/// let value = try secret.value(environment: ProcessInfo.processInfo.environment)
/// ```
public struct ConfigSecret: Sendable, Hashable {
  /// The pair's stem: `secret` for `secretEnv` / `secretFile`.
  public var key: String
  public var env: String?
  public var file: String?

  /// The environment variable systemd sets to the directory of a unit's credentials.
  public static let credentialsDirectoryVariable = "CREDENTIALS_DIRECTORY"

  public init(key: String, env: String?, file: String?) {
    self.key = key
    self.env = env
    self.file = file
  }

  /// Either key of the pair is given.
  public var isConfigured: Bool { env != nil || file != nil }

  /// The secret, from the one source the pair names.
  public func value(environment: [String: String]) throws(ConfigSecretError) -> String {
    switch (env, file) {
    case (nil, nil): throw .missing(key: key)
    case (.some, .some): throw .both(key: key)
    case (.some(let name), nil):
      guard let value = environment[name], !value.isEmpty else { throw .unset(key: key, variable: name) }
      return value
    case (nil, .some(let path)):
      let resolved = Self.path(path, environment: environment)
      guard let data = FileManager.default.contents(atPath: resolved) else {
        throw .unreadable(key: key, path: resolved)
      }
      var text = String(decoding: data, as: UTF8.self)
      while text.last == "\n" || text.last == "\r" || text.last == "\r\n" { text.removeLast() }
      guard !text.isEmpty else { throw .empty(key: key, path: resolved) }
      return text
    }
  }

  /// The secret when the pair is configured, nil when neither key is given.
  public func optionalValue(environment: [String: String]) throws(ConfigSecretError) -> String? {
    isConfigured ? try value(environment: environment) : nil
  }

  /// The problem reading it, if any (for a config check); nothing when it is optional and absent.
  public func problem(environment: [String: String], required: Bool) -> String? {
    guard required || isConfigured else { return nil }
    do {
      _ = try value(environment: environment)
      return nil
    } catch {
      return error.description
    }
  }

  /// `path` as read: absolute as given; relative, under `$CREDENTIALS_DIRECTORY` when it is set.
  public static func path(_ path: String, environment: [String: String]) -> String {
    guard !path.hasPrefix("/"), let directory = environment[credentialsDirectoryVariable], !directory.isEmpty else {
      return path
    }
    return directory.hasSuffix("/") ? directory + path : directory + "/" + path
  }
}

/// Why a secret cannot be read; each names the config key (never the secret).
public enum ConfigSecretError: Error, Sendable, Hashable, CustomStringConvertible {
  case missing(key: String)
  case both(key: String)
  case unset(key: String, variable: String)
  case unreadable(key: String, path: String)
  case empty(key: String, path: String)

  public var description: String {
    switch self {
    case .missing(let key): "\(key)Env or \(key)File is required"
    case .both(let key): "\(key)Env and \(key)File are both set: keep one"
    case .unset(let key, let variable): "\(key)Env names $\(variable), which is not set"
    case .unreadable(let key, let path): "\(key)File: \(path) cannot be read"
    case .empty(let key, let path): "\(key)File: \(path) is empty"
    }
  }
}
