import Testing
import TollgateCallers

@Suite("The caller key in authorization: Bearer <key>")
struct BearerTokenTests {
  @Test("the key after the scheme, the scheme in any case")
  func good() {
    #expect(BearerToken.key(fromAuthorization: "Bearer tgk_abc-DEF_123") == "tgk_abc-DEF_123")
    #expect(BearerToken.key(fromAuthorization: "bearer k") == "k")
    #expect(BearerToken.key(fromAuthorization: "BEARER k") == "k")
    #expect(BearerToken.key(fromAuthorization: "bEaReR k") == "k")
  }

  @Test("spaces: one or more before the key, around the value ignored, never inside the key")
  func spaces() {
    #expect(BearerToken.key(fromAuthorization: "Bearer     k") == "k")
    #expect(BearerToken.key(fromAuthorization: "  Bearer k \t") == "k")
    #expect(BearerToken.key(fromAuthorization: "Bearer k1 k2") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bearer k1\tk2") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bearer\tk") == nil, "the scheme and the key are parted by a space")
  }

  @Test("another scheme, no scheme or no space after it is no key")
  func badScheme() {
    #expect(BearerToken.key(fromAuthorization: "Basic dXNlcjpwYXNz") == nil)
    #expect(BearerToken.key(fromAuthorization: "Token k") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bearerk") == nil)
    #expect(BearerToken.key(fromAuthorization: "k") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bear k") == nil)
  }

  @Test("a missing value or an empty key is no key")
  func empty() {
    #expect(BearerToken.key(fromAuthorization: nil) == nil)
    #expect(BearerToken.key(fromAuthorization: "") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bearer") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bearer ") == nil)
    #expect(BearerToken.key(fromAuthorization: "Bearer    ") == nil)
  }

  @Test("a key of 512 bytes is read, one of 513 is not")
  func oversized() {
    let longest = String(repeating: "k", count: BearerToken.maximumKeyBytes)
    #expect(BearerToken.maximumKeyBytes == 512)
    #expect(BearerToken.key(fromAuthorization: "Bearer " + longest) == longest[...])
    #expect(BearerToken.key(fromAuthorization: "Bearer " + longest + "k") == nil)
    // Counted in bytes, not characters: 257 two-byte characters are 514 bytes.
    #expect(BearerToken.key(fromAuthorization: "Bearer " + String(repeating: "é", count: 257)) == nil)
  }
}
