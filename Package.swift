// swift-tools-version:6.0
import PackageDescription

/// One system-library target per C library, found through pkg-config and installed from Debian.
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "Soar",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SoarCore", targets: ["SoarCore"]),
        .library(name: "SoarAPNs", targets: ["SoarAPNs"]),
        .library(name: "SoarEmulator", targets: ["SoarEmulator"]),
        .library(name: "SoarClient", targets: ["SoarClient"]),
        .library(name: "SoarClientTesting", targets: ["SoarClientTesting"]),
        .library(name: "SoarTesting", targets: ["SoarTesting"]),
        .executable(name: "soar", targets: ["soar"]),
    ],
    targets: [
        systemLibrary("CNghttp2", pkgConfig: "libnghttp2", apt: ["libnghttp2-dev"]),
        systemLibrary("COpenSSL", pkgConfig: "openssl", apt: ["libssl-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        systemLibrary("CPostgres", pkgConfig: "libpq", apt: ["libpq-dev"]),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        systemLibrary("CQREncode", pkgConfig: "libqrencode", apt: ["libqrencode-dev"]),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        systemLibrary("CVips", pkgConfig: "vips", apt: ["libvips-dev"]),
        systemLibrary("CArgon2", pkgConfig: "libargon2", apt: ["libargon2-dev"]),
        // libxcrypt: bcrypt, to verify the hashes of users imported from Supabase.
        systemLibrary("CCrypt", pkgConfig: "libcrypt", apt: ["libcrypt-dev"]),
        // No pkg-config file ships with libpg-query-dev or libwslay-dev: the module maps link them by name.
        .systemLibrary(name: "CPgQuery", providers: [.apt(["libpg-query-dev"])]),
        .systemLibrary(name: "CWslay", providers: [.apt(["libwslay-dev"])]),
        .systemLibrary(name: "CLinux"),

        .target(name: "SoarCore"),
        // The app side: platform-neutral, talks to the backend over URLSession only.
        // SHA-256 for PKCE: CryptoKit on Apple systems, OpenSSL through SoarCrypto elsewhere; a
        // WebSocket client for realtime: URLSession on Apple systems, libwslay elsewhere.
        .target(
            name: "SoarClient",
            dependencies: [
                "SoarCore", .target(name: "SoarCrypto", condition: .when(platforms: [.linux])),
                .target(name: "CWslay", condition: .when(platforms: [.linux])),
            ]),
        // Fakes for an app's own tests (notification center, APNs registration, network, secure
        // store, clocks, an in-memory data API): SoarClient only, so they build for iOS too.
        .target(name: "SoarClientTesting", dependencies: ["SoarClient"]),
        .target(name: "SoarCrypto", dependencies: ["SoarCore", "COpenSSL", "CArgon2", "CCrypt"]),
        .target(name: "SoarHTTP", dependencies: ["SoarCore", "CMicroHTTPD"]),
        .target(name: "SoarHTTP2", dependencies: ["CNghttp2", "CLinux", "SoarCrypto"]),
        // The provider and the emulator hold APNs logic only: HTTP/2, sockets and the event loop are SoarHTTP2's.
        .target(name: "SoarAPNs", dependencies: ["SoarCore", "SoarCrypto", "SoarHTTP2"]),
        .target(name: "SoarEmulator", dependencies: ["SoarCore", "SoarCrypto", "SoarHTTP", "SoarHTTP2"]),
        // Soar's own schema per store (db/sqlite, db/postgres) and the app's starter migration (db/app), compiled in.
        .target(name: "SoarMigrations", path: "db", resources: [.embedInCode("sqlite"), .embedInCode("postgres"), .embedInCode("app")]),
        // The app's schema: its SQL migrations parsed by Postgres's parser, and translated for SQLite.
        .target(name: "SoarSchema", dependencies: ["SoarCore", "SoarCrypto", "CPgQuery"]),
        // SQLite's default VFS with each transaction's WAL frames written in one system call.
        .target(name: "CSQLiteVFS", dependencies: ["CSQLite"]),
        // SQLite's default page cache, without a walk of all its pages when a transaction ends.
        .target(name: "CSQLitePageCache", dependencies: ["CSQLite"]),
        .target(name: "SoarStore", dependencies: ["SoarCore", "CSQLite", "CSQLiteVFS", "CSQLitePageCache", "CPostgres", "SoarMigrations", "SoarSchema"]),
        .target(name: "SoarAuth", dependencies: ["SoarCore", "SoarCrypto", "SoarStore", "CQREncode", "CCurl"]),
        .target(name: "SoarPush", dependencies: ["SoarCore", "SoarCrypto", "SoarAPNs", "SoarStore", "CCurl"]),
        // Supabase Storage without HTTP: buckets and objects as rows under the app's policies, bytes as files.
        .target(name: "SoarStorage", dependencies: ["SoarCore", "SoarCrypto", "SoarStore", "SoarImages"]),
        // Image transforms through libvips, alone in a target: its C headers stay out of SoarStorage.
        .target(name: "SoarImages", dependencies: ["CVips"]),
        .target(name: "SoarRealtime", dependencies: ["SoarCore", "SoarHTTP", "SoarHTTP2", "CWslay"]),
        // The console's pages, compiled in (Sources/SoarConsoleAssets/assets).
        .target(name: "SoarConsoleAssets", resources: [.embedInCode("assets")]),
        .target(name: "SoarServer", dependencies: ["SoarRealtime", "SoarCore", "SoarCrypto", "SoarHTTP", "SoarSchema", "SoarStore", "SoarAuth", "SoarPush", "SoarStorage", "SoarConsoleAssets"]),
        .target(name: "SoarCommands", dependencies: ["SoarCore", "SoarSchema", "SoarStore", "SoarStorage", "SoarCrypto", "SoarAPNs", "SoarEmulator", "SoarPush", "SoarRealtime", "SoarServer", "SoarClient", "SoarClientTesting"]),
        .executableTarget(name: "soar", dependencies: ["SoarCommands", "SoarCrypto"]),
        .target(name: "SoarTesting", dependencies: ["CLinux", "SoarCore", "SoarCrypto", "SoarSchema", "SoarStore", "SoarAPNs", "SoarEmulator", "SoarServer", "SoarPush", "SoarClient", "SoarClientTesting"]),

        .testTarget(name: "SoarCoreTests", dependencies: ["SoarCore"]),
        .testTarget(name: "SoarCryptoTests", dependencies: ["SoarCrypto", "SoarTesting"]),
        .testTarget(name: "SoarSchemaTests", dependencies: ["SoarSchema"]),
        .testTarget(name: "SoarStorageTests", dependencies: ["SoarStorage", "SoarImages", "SoarCore"]),
        .testTarget(name: "SoarHTTP2Tests", dependencies: ["SoarHTTP2"]),
        .testTarget(name: "SoarEmulatorTests", dependencies: ["SoarEmulator", "SoarHTTP2", "SoarTesting"]),
        .testTarget(name: "SoarAPNsTests", dependencies: ["SoarAPNs", "SoarHTTP2", "SoarTesting"]),
        .testTarget(name: "EndToEndTests", dependencies: ["SoarTesting", "SoarClient", "SoarCrypto", "SoarStore", "SoarMigrations", "SoarAuth"]),
        .testTarget(name: "SoarClientTests", dependencies: ["SoarClient", "SoarTesting", "SoarEmulator"]),
        .testTarget(name: "SoarCommandsTests", dependencies: ["SoarCommands"]),
        .testTarget(name: "SoarStoreTests", dependencies: ["SoarStore", "SoarMigrations", "SoarTesting", "CSQLite", "CSQLiteVFS", "CSQLitePageCache"], exclude: ["Fixtures"]),
        .testTarget(name: "SoarServerTests", dependencies: ["SoarServer", "SoarAuth", "SoarCrypto", "SoarStore", "SoarStorage", "SoarPush", "SoarAPNs", "SoarEmulator", "SoarTesting"]),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CNghttp2", "COpenSSL", "CSQLite", "CPostgres", "CMicroHTTPD", "CPgQuery", "CQREncode", "CCurl", "CArgon2", "CCrypt", "CWslay", "CVips"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every import is declared where it is used: a member of a module the file does not import is an
// error, not a lucky find through another file's import.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
