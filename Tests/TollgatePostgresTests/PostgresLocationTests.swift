import Testing
import TollgatePostgres

/// `postgres://` URLs: the forms Tollgate takes, and those it refuses (a password above all),
/// with errors that never repeat the URL.
@Suite("PostgreSQL location")
struct PostgresLocationTests {
  static let formCases: [(String, PostgresLocation)] = [
    (
      "postgres://tollgate@db.internal:6432/entitlements?sslmode=require",
      PostgresLocation(
        endpoint: .tcp(host: "db.internal", port: 6432), user: "tollgate", database: "entitlements", sslMode: .require
      )
    ),
    (
      "postgresql://tollgate@db.internal/entitlements",
      PostgresLocation(
        endpoint: .tcp(host: "db.internal", port: 5432), user: "tollgate", database: "entitlements", sslMode: .prefer)
    ),
    (
      "POSTGRES://me@127.0.0.1:5433/db?sslmode=disable",
      PostgresLocation(endpoint: .tcp(host: "127.0.0.1", port: 5433), user: "me", database: "db", sslMode: .disable)
    ),
    (
      "postgres://me@[::1]:5433/db?sslmode=verify-full",
      PostgresLocation(endpoint: .tcp(host: "::1", port: 5433), user: "me", database: "db", sslMode: .verifyFull)
    ),
    (
      "postgres://me@[::1]/db",
      PostgresLocation(endpoint: .tcp(host: "::1", port: 5432), user: "me", database: "db", sslMode: .prefer)
    ),
    (
      "postgres://me@/db?host=/run/postgresql",
      PostgresLocation(
        endpoint: .unixSocket(path: "/run/postgresql/.s.PGSQL.5432"), user: "me", database: "db", sslMode: .prefer)
    ),
    (
      "postgres://me@/db?host=/tmp/pg/&port=34625&sslmode=disable",
      PostgresLocation(
        endpoint: .unixSocket(path: "/tmp/pg/.s.PGSQL.34625"), user: "me", database: "db", sslMode: .disable)
    ),
    (
      "postgres://me@/db?host=%2Fvar%2Frun%2Fpg",
      PostgresLocation(
        endpoint: .unixSocket(path: "/var/run/pg/.s.PGSQL.5432"), user: "me", database: "db", sslMode: .prefer)
    ),
    (
      "postgres://app%40corp@db/my%20db",
      PostgresLocation(endpoint: .tcp(host: "db", port: 5432), user: "app@corp", database: "my db", sslMode: .prefer)
    ),
  ]

  @Test("URL forms", arguments: formCases)
  func forms(url: String, expected: PostgresLocation) throws {
    let location = try PostgresLocation(url: url)
    #expect(location == expected)
    // The description is a URL for the same location (processes are started with it).
    #expect(try PostgresLocation(url: location.description) == location)
  }

  @Test("the description names the endpoint and never a password")
  func description() throws {
    #expect(
      try PostgresLocation(url: "postgres://me@[::1]:5433/db").description
        == "postgres://me@[::1]:5433/db?sslmode=prefer")
    #expect(
      try PostgresLocation(url: "postgres://me@/db?host=/tmp/pg&port=34625&sslmode=disable").description
        == "postgres://me@/db?host=/tmp/pg&port=34625&sslmode=disable")
  }

  static let refusalCases: [(String, PostgresLocationError)] = [
    ("/var/lib/tollgate/db.sqlite", .notPostgres),
    ("mysql://me@db/x", .notPostgres),
    ("postgres://me@db", .noDatabase),
    ("postgres://me@db/", .noDatabase),
    ("postgres://me@db/a/b", .noDatabase),
    ("postgres://db/x", .noUser),
    ("postgres://@db/x", .noUser),
    ("postgres://me@/x", .noHost),
    ("postgres://me@db/x?host=/run/postgresql", .twoHosts),
    ("postgres://me@db:0/x", .badPort),
    ("postgres://me@db:65536/x", .badPort),
    ("postgres://me@db:http/x", .badPort),
    ("postgres://me@[::1]x/db", .badPort),
    ("postgres://me@db/x?port=-1", .badPort),
    ("postgres://me@db/x%2", .badEscape),
    ("postgres://me@db/x?sslmode=allow", .badSSLMode),
    ("postgres://me:s3cret@db/x", .passwordInURL),
    ("postgres://me:@db/x", .passwordInURL),
    ("postgres://me@db/x?password=s3cret", .passwordInURL),
    ("postgres://me@db/x?application_name=s3cret", .unknownParameter("application_name")),
  ]

  @Test("refused URLs", arguments: refusalCases)
  func refused(url: String, expected: PostgresLocationError) {
    let error = #expect(throws: PostgresLocationError.self) { try PostgresLocation(url: url) }
    #expect(error == expected)
    // An error never repeats the URL, nor the secret someone put in it.
    let message = error?.description ?? ""
    #expect(!message.isEmpty)
    #expect(!message.contains(url))
    #expect(!message.contains("s3cret"))
  }
}
