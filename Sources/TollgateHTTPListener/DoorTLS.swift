import Foundation
import NIOSSL

/// TLS on one of serve's HTTP-based doors (`service.grpc.tls`, `service.http.tls`): the server's
/// certificate chain and private key, PEM files, and with `clientCAFile` mutual TLS, where a client
/// must present a certificate that chains to those CAs. One type for both doors, decoded from the
/// config file as it stands (`{"certificateFile": …, "privateKeyFile": …, "clientCAFile": …}`).
///
/// The fast port's TLS (`service.tls`) is OpenSSL's, through `TLSServerContext`; the doors' is
/// SwiftNIO SSL's (BoringSSL), which Hummingbird and grpc-swift speak. The files are the same.
///
/// ```swift
/// let tls = DoorTLS(certificateFile: "server.pem", privateKeyFile: "server.key", clientCAFile: "ca.pem")
/// tls.problem(key: "service.http.tls")                              // nil: every path names a file
/// let configuration = try tls.serverConfiguration(key: "service.http.tls")  // reads the files once
/// ```
public struct DoorTLS: Sendable, Hashable, Decodable {
  public var certificateFile: String
  public var privateKeyFile: String
  /// Mutual TLS: the CAs a client's certificate must chain to. Nil: no client certificate asked.
  public var clientCAFile: String?

  public init(certificateFile: String, privateKeyFile: String, clientCAFile: String? = nil) {
    self.certificateFile = certificateFile
    self.privateKeyFile = privateKeyFile
    self.clientCAFile = clientCAFile
  }

  /// Clients must present a certificate (mutual TLS).
  public var requiresClientCertificates: Bool { clientCAFile != nil }

  /// What is wrong with these settings as config values under `key` (`service.http.tls`), naming
  /// the key (`service.http.tls.certificateFile must name a PEM file`); nil when nothing is. Reads
  /// no file: `serverConfiguration(key:)` does.
  public func problem(key: String) -> String? {
    let files = [("certificateFile", certificateFile), ("privateKeyFile", privateKeyFile)]
    for (name, path) in files + (clientCAFile.map { [("clientCAFile", $0)] } ?? []) where path.isEmpty {
      return "\(key).\(name) must name a PEM file"
    }
    return nil
  }

  /// The server's TLS configuration from these files, each read once, now: TLS 1.2 or newer, under
  /// TLS 1.2 only the fast port's suites (ECDHE key exchange, AEAD ciphers), and with
  /// `clientCAFile` a client certificate required that chains to those CAs (their names are sent
  /// in the request for one). A file that is missing, unreadable or holds no PEM certificate or
  /// key, or a key that does not match the certificate, is a `DoorTLSError` naming the key under
  /// `key` (`service.http.tls.privateKeyFile`) and the file.
  public func serverConfiguration(key: String) throws(DoorTLSError) -> TLSConfiguration {
    let chain = try Self.certificates(in: certificateFile, key: "\(key).certificateFile")
    let privateKey = try Self.privateKey(in: privateKeyFile, key: "\(key).privateKeyFile")
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    configuration.minimumTLSVersion = .tlsv12
    configuration.cipherSuiteValues = Self.tls12CipherSuites
    if let clientCAFile {
      let authorities = try Self.certificates(in: clientCAFile, key: "\(key).clientCAFile")
      configuration.trustRoots = .certificates(authorities)
      configuration.certificateVerification = .noHostnameVerification
      configuration.sendCANameList = true
    }
    // BoringSSL refuses a key that is not the certificate's when the context is made.
    do {
      _ = try NIOSSLContext(configuration: configuration)
    } catch {
      throw DoorTLSError(
        key: "\(key).privateKeyFile", file: privateKeyFile,
        problem: "cannot be used with \(certificateFile) (is it that certificate's key?): \(error)")
    }
    return configuration
  }

  /// Reads every file once and makes a context from them, so that a door with an unusable one
  /// fails when it is made, naming the key and the file, and not when it first listens.
  public func check(key: String) throws(DoorTLSError) {
    _ = try serverConfiguration(key: key)
  }

  /// The TLS 1.2 suites a door offers: the fast port's (Sources/CTollgateCrypto/tls.c,
  /// `TG_TLS12_SERVER_CIPHERS`, Mozilla's "intermediate" list without DHE). TLS 1.3's suites are
  /// all AEAD with forward secrecy and not configurable.
  public static let tls12CipherSuites: [NIOTLSCipher] = [
    .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
    .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
  ]

  private static func contents(of path: String, key: String) throws(DoorTLSError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw DoorTLSError(key: key, file: path, problem: "cannot be read (missing, or not readable by this user)")
    }
    return Array(data)
  }

  private static func certificates(in path: String, key: String) throws(DoorTLSError) -> [NIOSSLCertificate] {
    let bytes = try contents(of: path, key: key)
    let certificates: [NIOSSLCertificate]
    do {
      certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
    } catch {
      throw DoorTLSError(key: key, file: path, problem: "holds no PEM certificate: \(error)")
    }
    guard !certificates.isEmpty else { throw DoorTLSError(key: key, file: path, problem: "holds no PEM certificate") }
    return certificates
  }

  private static func privateKey(in path: String, key: String) throws(DoorTLSError) -> NIOSSLPrivateKey {
    let bytes = try contents(of: path, key: key)
    do {
      return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
    } catch {
      // The error names no byte of the key.
      throw DoorTLSError(key: key, file: path, problem: "holds no unencrypted PEM private key: \(error)")
    }
  }
}

/// A door's TLS file cannot be used: the config key (`service.http.tls.certificateFile`), the
/// file, and why.
public struct DoorTLSError: Error, Sendable, Hashable, CustomStringConvertible {
  public var key: String
  public var file: String
  public var problem: String

  public init(key: String, file: String, problem: String) {
    self.key = key
    self.file = file
    self.problem = problem
  }

  public var description: String { "\(key) \(file): \(problem)" }
}
