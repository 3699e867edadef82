import AppStore
import Foundation
import TollgateCrypto

/// The simulated App Store's signing identity: a root → intermediate (Apple's WWDR OID) →
/// leaf (Apple's receipt-signing OID) chain, and the leaf key that signs every JWS.
struct AppleSigner: Sendable {
  let root: Certificate
  let intermediate: Certificate
  let leaf: Certificate
  let leafKey: P256PrivateKey
  /// Signs under Apple's header (`alg` ES256, `x5c` leaf, intermediate, root), encoded once.
  private let signer: JWS.ES256Signer

  static let rootFile = "apple-root.cer"
  private static let intermediateFile = "apple-intermediate.cer"
  private static let leafFile = "apple-leaf.cer"
  private static let leafKeyFile = "apple-leaf-key.pem"

  init(root: Certificate, intermediate: Certificate, leaf: Certificate, leafKey: P256PrivateKey) {
    self.root = root
    self.intermediate = intermediate
    self.leaf = leaf
    self.leafKey = leafKey
    let x5c = [leaf, intermediate, root].map { Base64.encode($0.der) }
    do {
      signer = try JWS.ES256Signer(header: ["x5c": x5c], key: leafKey)
    } catch {
      // A header of three strings always encodes.
      preconditionFailure("cannot encode the simulated Apple header: \(error)")
    }
  }

  /// A fresh chain valid 20 years around `nowSeconds` (virtual time can run far ahead), or the
  /// one saved in `directory`; a new chain is saved there.
  static func load(orCreateIn directory: String?, nowSeconds: Int64) throws(StoreSimulatorError) -> AppleSigner {
    do {
      if let directory {
        let files = [rootFile, intermediateFile, leafFile, leafKeyFile].map { "\(directory)/\($0)" }
        if files.allSatisfy(FileManager.default.fileExists(atPath:)) {
          let ders = try files.prefix(3).map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0))) }
          let pem = try String(contentsOfFile: files[3], encoding: .utf8)
          return AppleSigner(
            root: try Certificate(der: ders[0]), intermediate: try Certificate(der: ders[1]),
            leaf: try Certificate(der: ders[2]), leafKey: try P256PrivateKey(pem: pem))
        }
      }
      var options = SimulatedSigningChain.Options.defaults
      options.commonNamePrefix = "Tollgate StoreSim Apple"
      let window = SimulatedSigningChain.Validity.around(nowSeconds - 365 * 86_400, years: 21)
      options.root = window
      options.intermediate = window
      options.leaf = window
      let authority = try SimulatedSigningChain(now: nowSeconds, options: options)
      let signer = AppleSigner(
        root: authority.root, intermediate: authority.intermediate, leaf: authority.leaf, leafKey: authority.leafKey)
      if let directory {
        try SimulatorKeys.makeDirectory(directory)
        try SimulatorKeys.writePrivate(signer.root.der, to: "\(directory)/\(rootFile)")
        try SimulatorKeys.writePrivate(signer.intermediate.der, to: "\(directory)/\(intermediateFile)")
        try SimulatorKeys.writePrivate(signer.leaf.der, to: "\(directory)/\(leafFile)")
        try SimulatorKeys.writePrivate(Array(try signer.leafKey.pkcs8PEM().utf8), to: "\(directory)/\(leafKeyFile)")
      }
      return signer
    } catch {
      throw StoreSimulatorError(
        code: .startup, message: "cannot set up the Apple signing chain: \(error)", cause: error)
    }
  }

  /// A compact JWS with Apple's header (`alg` ES256, `x5c` leaf, intermediate, root).
  func sign<Payload: Encodable>(_ payload: Payload) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      let json = try encoder.encode(payload)
      return try signer.sign(payloadJSON: Array(json))
    } catch {
      // Encoding our own structs and signing with a loaded key cannot fail short of a bug.
      preconditionFailure("cannot sign a simulated payload: \(error)")
    }
  }
}
