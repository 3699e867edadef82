// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "tollgate",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "tollgate", targets: ["tollgate"]),
    .library(name: "TollgateClient", targets: ["TollgateClient"]),
  ],
  traits: [
    // Only scripts/fuzz enables it: TollgateFuzz then links the harnesses and runs them under libFuzzer.
    .trait(name: "Fuzzing", description: "Build the libFuzzer driver (TollgateFuzz) with the fuzz harnesses.")
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    // TLS for the Swift client (already resolved: AsyncHTTPClient depends on it).
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    // PostgreSQL storage (issue 27): the connection pool, the wire protocol, LISTEN/NOTIFY.
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    // gRPC (issue 28): the core (no NIO, no protobuf), the NIO HTTP/2 transport, the protobuf codec.
    .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
    .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
    .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
  ],
  targets: [
    // Pure domain: no I/O, no dependencies.
    .target(name: "TollgateCore", swiftSettings: strict),

    // SQLite from Debian's libsqlite3-dev.
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    // The storage seams the service reads through, neutral of any database: entitlement records,
    // the change feed and its marks, the change signal, submissions.
    .target(name: "TollgateStorage", dependencies: ["TollgateCore"], swiftSettings: strict),
    // SQLite, the embedded default: the connection, the schema and its migrations, the file
    // identity checks, the change probe and the service's storage on it.
    .target(
      name: "TollgateSQLite",
      dependencies: [
        "TollgateCore", "TollgateStorage", "CSQLite",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),

    // OpenSSL (Debian's libssl-dev) behind a small C shim: the only code that touches OpenSSL.
    .target(
      name: "CTollgateCrypto",
      linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
    ),
    // The Swift face of the shim: X.509 chains, ES256/RS256, PKCS#7, SHA-256/HMAC, test CAs.
    .target(name: "TollgateCrypto", dependencies: ["CTollgateCrypto"], swiftSettings: strict),

    // Google Play: Android Publisher models, RTDN and Pub/Sub push, OAuth and OIDC, the API client.
    // The report every Google Play and Amazon `tollgate inspect` command prints.
    .target(
      name: "StoreInspection",
      swiftSettings: strict
    ),
    .target(
      name: "GooglePlay",
      dependencies: [
        "TollgateCore", "TollgateCrypto", "StoreInspection",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),
    // Amazon Appstore: RVS client and receipts, RTN over Amazon SNS (signature verification), mapping.
    .target(
      name: "AmazonAppstore",
      dependencies: [
        "TollgateCore", "TollgateCrypto", "StoreInspection",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),
    // Apple App Store: JWS and receipt verification, wire models, notifications, API client.
    .target(
      name: "AppStore",
      dependencies: [
        "TollgateCore", "TollgateCrypto",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),

    // HTTP listener plumbing (issue 28): the listen address, the application builder, the
    // connection guard and its limits, the bound port. Depends on no Tollgate target, so the
    // worker and serve's HTTP door share it.
    .target(
      name: "TollgateHTTPListener",
      dependencies: [
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        // TLS on the doors' listeners (DoorTLS): HummingbirdTLS serves it, NIOSSL configures it.
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),

    // Log lines as JSON (issue 29): the handler behind `--log-format json`. Depends on swift-log only.
    .target(
      name: "TollgateLogFormat",
      dependencies: [.product(name: "Logging", package: "swift-log")],
      swiftSettings: strict
    ),

    // `tollgate worker`: verifies purchases and notifications against the stores, keeps state true.
    // Knows its storage and the stores only through the seams it owns (WorkerStorage, StoreGateway).
    .target(
      name: "TollgateWorker",
      dependencies: [
        "TollgateCore", "TollgateCrypto", "TollgateHTTPListener",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        // NIOThreadPool: signature and chain checks run off the cooperative pool (BlockingWork).
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),
    // The worker's storage on SQLite: inbox, subscriptions, schedule, grants, events, catalog.
    .target(
      name: "TollgateWorkerSQLite",
      dependencies: [
        "TollgateWorker", "TollgateStorage", "TollgateSQLite", "TollgateCore",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // PostgreSQL, for deployments across hosts: the location (URL, password from the environment
    // or a file), the pool, the schema and its migrations, and the service's storage on it.
    .target(
      name: "TollgatePostgres",
      dependencies: [
        "TollgateCore", "TollgateStorage",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // The worker's storage on PostgreSQL: every `WorkerStorage` operation.
    .target(
      name: "TollgateWorkerPostgres",
      dependencies: [
        "TollgateWorker", "TollgateStorage", "TollgatePostgres", "TollgateCore",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // Picks the storage the `--database` / `database` value names (an SQLite path today) and opens
    // the service's and the worker's storage on it: the only code the executable and the demo
    // reach a database through.
    .target(
      name: "TollgateStorageFactory",
      dependencies: [
        "TollgateStorage", "TollgateSQLite", "TollgateWorker", "TollgateWorkerSQLite", "TollgateCore",
        "TollgatePostgres", "TollgateWorkerPostgres",
        .product(name: "Logging", package: "swift-log"),
        // `tollgate migrate-storage` (Migration/): rows of any table, bound and read as they are.
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      swiftSettings: strict),
    // The worker's gateway to the Amazon Appstore: the amazon config section, SNS admission, RVS.
    .target(
      name: "AmazonGateway",
      dependencies: [
        "TollgateWorker", "AmazonAppstore", "TollgateCore", "TollgateCrypto",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),
    // The worker's gateway to Google Play: the googlePlay config section, Google's errors classified.
    .target(
      name: "GooglePlayGateway",
      dependencies: [
        "TollgateWorker", "GooglePlay", "TollgateCore", "TollgateCrypto",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    // The worker's gateway to Apple: receipts, signed transactions, notifications, the Server API.
    .target(
      name: "AppStoreGateway",
      dependencies: [
        "TollgateWorker", "AppStore", "TollgateCore", "TollgateCrypto",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),

    // `tollgate storesim`: the stores' server APIs and notifications on a virtual clock.
    .target(
      name: "StoreSimulator",
      dependencies: [
        "TollgateCore", "TollgateCrypto", "AppStore",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // The whole system on one machine (simulator + worker + service): `tollgate demo` and the
    // end-to-end tests.
    .target(
      name: "TollgateDemo",
      dependencies: [
        "TollgateCore", "TollgateStorage", "TollgateStorageFactory", "TollgateClient", "TollgateService",
        "TollgateWorker", "AppStoreGateway", "GooglePlayGateway", "AmazonGateway",
        "StoreSimulator",
        "TollgateCrypto", "TollgateMetrics",
        // The service's admin calls on the worker's storage, for the demo's support console.
        "TollgateSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      swiftSettings: strict
    ),

    // What every process's Prometheus export shares (issue 29): the HELP-giving swift-metrics
    // factory on a Prometheus registry and the build-info gauge.
    .target(
      name: "TollgateMetrics",
      dependencies: [
        "TollgateContract",
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      swiftSettings: strict
    ),

    // The Linux calls the RPC server's event loops and the load generator need and Glibc's module
    // lacks: epoll, eventfd, accept4, the monotonic clock.
    .target(name: "CTollgateNet"),

    // The contract: the generated protobuf types of proto/tollgate.proto and the service's method
    // indices. What every client and the server share; no transport.
    .target(
      name: "TollgateContract",
      dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
      exclude: ["Generated/README.md"],
      swiftSettings: strict
    ),

    // The wire: protobuf-c-rpc framing (the only code that knows the header layout) and the
    // hand-written IsSubscriber codec. Used by the server, the client and `tollgate bench`.
    .target(
      name: "TollgateWire",
      dependencies: [
        "TollgateContract",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      ],
      swiftSettings: strict
    ),

    // Callers, keys, scopes and their limits, with no transport: the one set every door (the fast
    // port, gRPC, HTTP) checks its callers against (issue 28).
    .target(
      name: "TollgateCallers",
      dependencies: [
        "TollgateCrypto", "CTollgateNet",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // The RPC server (Linux): its own epoll event loops answering the Entitlements service.
    .target(
      name: "TollgateServer",
      dependencies: [
        "TollgateContract", "TollgateWire", "CTollgateNet", "TollgateCore", "TollgateCrypto", "TollgateCallers",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // The Swift client (the `TollgateClient` product): SwiftNIO, async/await; builds on macOS too.
    .target(
      name: "TollgateClient",
      dependencies: [
        "TollgateContract", "TollgateWire",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      ],
      swiftSettings: strict
    ),

    // The in-memory index of every user's entitlements and the change-feed follower that keeps
    // it in step with storage. Answers with values; knows nothing of the wire.
    .target(
      name: "TollgateIndex",
      dependencies: [
        "TollgateCore", "TollgateStorage",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // `tollgate serve`: the Entitlements service's handlers over the index and the inbox, and the
    // service that runs the RPC server and the change-feed follower.
    .target(
      name: "TollgateService",
      dependencies: [
        "TollgateCore", "TollgateStorage", "TollgateIndex", "TollgateContract", "TollgateWire", "TollgateServer",
        "TollgateCallers", "TollgateCrypto",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // serve's admin listener (issue 29): /metrics (the doors' calls, summed from the fast port's
    // per-loop counters at each scrape), /livez, /readyz and /health, on TollgateHTTPListener.
    .target(
      name: "TollgateServeMetrics",
      dependencies: [
        "TollgateService", "TollgateServer", "TollgateIndex", "TollgateCore", "TollgateContract",
        "TollgateHTTPListener", "TollgateMetrics",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // serve's gRPC door (issue 28): the Entitlements service and grpc.health.v1 over HTTP/2, answering
    // through the same handlers as the fast port, callers checked by the same gate.
    .target(
      name: "TollgateGRPC",
      dependencies: [
        "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateHTTPListener",
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
        .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "NIOCore", package: "swift-nio"),
        // The transport's TLS and mutual TLS (GRPCTransportSecurity) are NIOSSL's.
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      exclude: ["Generated/README.md"],
      swiftSettings: strict
    ),

    // serve's HTTP/JSON door (issue 28): the same calls as routes, RFC 9457 problems, the same gate.
    .target(
      name: "TollgateHTTPAPI",
      dependencies: [
        "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateHTTPListener",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // Support and admin operations (issue 28) on the worker's storage seam: look-ups by store ids,
    // timelines, explain, grants, re-verify, erase; and their answers as the proto's messages.
    .target(
      name: "TollgateSupport",
      dependencies: [
        "TollgateCore", "TollgateWorker", "TollgateCallers", "TollgateServer", "TollgateContract",
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),

    // The support console (issue 29): server-rendered pages under /console on serve's HTTP door
    // (sign-in with an admin key, sessions, CSRF, search, a user's timelines, grant / revoke /
    // re-verify). The executable mounts it on the HTTP door (a DoorMount); it depends on no door.
    .target(
      name: "TollgateConsole",
      dependencies: [
        "TollgateSupport", "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateCore",
        "TollgateCrypto", "TollgateWorker",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),

    // `tollgate bench`: a load generator for the wire protocol (epoll, one loop per thread, HDR
    // histograms); TCP or Unix sockets, TLS through the OpenSSL shim, callers.
    .target(
      name: "TollgateBench",
      dependencies: [
        "CTollgateNet", "CTollgateCrypto", "TollgateWire", "TollgateContract",
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ],
      swiftSettings: strict
    ),

    .executableTarget(
      name: "tollgate",
      dependencies: [
        "TollgateCore", "TollgateStorage", "TollgateStorageFactory", "TollgateClient", "TollgateServer",
        "TollgateIndex", "TollgateService", "AppStore", "GooglePlay", "AmazonAppstore", "TollgateCrypto",
        "TollgateWorker", "AppStoreGateway", "GooglePlayGateway", "AmazonGateway",
        "StoreSimulator",
        "TollgateDemo", "TollgateBench", "TollgateCallers", "TollgateHTTPListener",
        "TollgateGRPC", "TollgateHTTPAPI", "TollgateSupport", "TollgateLogFormat", "TollgateMetrics",
        "TollgateServeMetrics", "TollgateConsole",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),

    // The fuzz harnesses (issue 17): each feeds arbitrary bytes to production parsing code (frames, the
    // IsSubscriber scan, JWS and x5c, receipts, every store's notification bodies, the config file).
    // Run under libFuzzer by scripts/fuzz (TollgateFuzz); FuzzCorpusTests replays Fuzz/corpus.
    .target(
      name: "FuzzTargets",
      dependencies: [
        "TollgateContract", "TollgateWire", "TollgateServer", "AppStore", "GooglePlay", "AmazonAppstore",
        "TollgateWorker", "AppStoreGateway", "GooglePlayGateway", "AmazonGateway", "TollgateCore", "TollgateCrypto",
        "TollgateHTTPListener",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      ],
      swiftSettings: strict
    ),
    // The libFuzzer driver: links the harnesses only with the Fuzzing trait, so a plain build stays small.
    .executableTarget(
      name: "TollgateFuzz",
      dependencies: [.byName(name: "FuzzTargets", condition: .when(traits: ["Fuzzing"]))],
      swiftSettings: strict
    ),

    // Test helpers shared by the test targets: golden frames, raw sockets, temporary databases, clocks.
    .target(
      name: "TollgateTesting",
      dependencies: [
        "TollgateCore", "TollgateStorage", "TollgateSQLite", "StoreSimulator", "TollgateContract",
        // A fresh database on the PostgreSQL server scripts/test starts (TestPostgres).
        "TollgatePostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
        // The storage conformance suite (Conformance/) is written against the worker's seam.
        "TollgateWorker",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ],
      path: "Tests/TollgateTesting",
      swiftSettings: strict
    ),

    .testTarget(
      name: "TollgateCoreTests",
      dependencies: [
        "TollgateCore",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateCryptoTests", dependencies: ["TollgateCrypto", "TollgateTesting"], swiftSettings: strict),
    .testTarget(
      name: "GooglePlayTests",
      dependencies: [
        "GooglePlay", "TollgateCrypto", "TollgateCore", "TollgateTesting",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "AmazonAppstoreTests",
      dependencies: [
        "AmazonAppstore", "TollgateCrypto", "TollgateCore", "TollgateTesting",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "AppStoreTests",
      dependencies: [
        "AppStore", "StoreSimulator", "TollgateCrypto", "TollgateCore", "TollgateTesting",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "StoreSimulatorTests",
      dependencies: [
        "StoreSimulator", "AppStore", "GooglePlay", "TollgateCrypto", "TollgateCore", "TollgateTesting",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateWorkerTests",
      dependencies: [
        "TollgateWorker", "TollgateCore", "TollgateTesting",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateHTTPListenerTests",
      dependencies: [
        "TollgateHTTPListener", "TollgateTesting",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "AmazonGatewayTests",
      dependencies: [
        "AmazonGateway", "AmazonAppstore", "TollgateWorker", "TollgateCore", "TollgateTesting",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "GooglePlayGatewayTests",
      dependencies: [
        "GooglePlayGateway", "GooglePlay", "TollgateWorker", "TollgateCore", "TollgateTesting",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "AppStoreGatewayTests",
      dependencies: [
        "AppStoreGateway", "AppStore", "TollgateWorker", "TollgateCore", "TollgateCrypto", "TollgateTesting",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateWorkerSQLiteTests",
      dependencies: [
        "TollgateWorkerSQLite", "TollgateWorker", "TollgateStorage", "TollgateSQLite", "TollgateCore",
        "TollgateTesting",
      ],
      swiftSettings: strict
    ),
    // Runs against the PostgreSQL server scripts/test starts (TOLLGATE_TEST_POSTGRES_URL).
    .testTarget(
      name: "TollgatePostgresTests",
      dependencies: [
        "TollgatePostgres", "TollgateWorkerPostgres", "TollgateWorker", "TollgateStorage", "TollgateCore",
        "TollgateTesting",
        // PostgresSchemaTests compares the schema with SQLite's.
        "TollgateSQLite",
        // The index's change-feed follower on PostgreSQL storage (Entitlements/).
        "TollgateIndex",
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateSQLiteTests", dependencies: ["TollgateSQLite", "TollgateStorage", "TollgateTesting"],
      swiftSettings: strict),
    .testTarget(
      name: "TollgateStorageFactoryTests",
      dependencies: [
        "TollgateStorageFactory", "TollgateStorage", "TollgateWorker", "TollgateCore", "TollgateTesting",
        // StorageMigrationTests reads both databases' rows itself to compare them.
        "TollgateSQLite", "TollgatePostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "TollgateWireTests",
      dependencies: [
        "TollgateContract", "TollgateWire", "TollgateTesting",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOTestUtils", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateServerTests",
      dependencies: [
        "TollgateContract", "TollgateWire", "TollgateServer", "TollgateClient", "TollgateTesting", "TollgateCallers",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateIndexTests",
      dependencies: [
        "TollgateIndex", "TollgateStorage", "TollgateSQLite", "TollgateCore", "TollgateTesting",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateServiceTests",
      dependencies: [
        "TollgateService", "TollgateIndex", "TollgateStorage", "TollgateSQLite", "TollgateCore", "TollgateContract",
        "TollgateWire",
        "TollgateServer", "TollgateTesting", "TollgateCallers",
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateServeMetricsTests",
      dependencies: ["TollgateServeMetrics", "TollgateServer", "TollgateContract"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateBenchTests",
      dependencies: [
        "TollgateBench", "TollgateContract", "TollgateWire", "TollgateServer", "TollgateTesting", "TollgateCallers",
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateCallersTests",
      dependencies: ["TollgateCallers", "TollgateCrypto"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateGRPCTests",
      dependencies: [
        "TollgateGRPC", "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateTesting",
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCInProcessTransport", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
        .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateHTTPAPITests",
      dependencies: [
        "TollgateHTTPAPI", "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateTesting",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateSupportTests",
      dependencies: [
        "TollgateSupport", "TollgateWorker", "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateCore",
        "TollgateTesting",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateConsoleTests",
      dependencies: [
        "TollgateConsole", "TollgateSupport", "TollgateCallers", "TollgateServer", "TollgateContract", "TollgateCore",
        "TollgateWorker", "TollgateTesting",
        // The console's HTTP tests answer through the door it is mounted on.
        "TollgateHTTPAPI",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "TollgateLogFormatTests",
      dependencies: ["TollgateLogFormat", "TollgateCore", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strict
    ),
    .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets"], swiftSettings: strict),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "TollgateService", "TollgateIndex", "TollgateStorage", "TollgateSQLite", "TollgateCore", "TollgateContract",
        "TollgateWire",
        "TollgateClient", "TollgateServer", "TollgateTesting",
        "TollgateWorker", "TollgateWorkerSQLite", "StoreSimulator", "TollgateCrypto", "AppStore", "GooglePlayGateway",
        "AmazonGateway",
        "TollgateDemo", "TollgateStorageFactory", "TollgatePostgres",
        "TollgateGRPC", "TollgateHTTPAPI", "TollgateSupport",
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
        .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
  ]
)
