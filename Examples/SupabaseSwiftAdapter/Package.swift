// swift-tools-version:6.1
import PackageDescription

/// SoarClient's push pipeline and data layer over supabase-swift: an iOS app keeps the client it
/// already has. Not part of Soar's CI (supabase-swift's dependencies cannot be resolved there);
/// README.md says how to build it from fetched snapshots.
let package = Package(
    name: "SupabaseSwiftAdapter",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "Soar", path: "../.."),
        .package(url: "https://github.com/supabase/supabase-swift.git", from: "2.0.0"),
    ],
    targets: [
        .target(
            name: "SupabaseSwiftAdapter",
            dependencies: [.product(name: "SoarClient", package: "Soar"), .product(name: "Supabase", package: "supabase-swift")]),
        .executableTarget(
            name: "adapter-demo", dependencies: ["SupabaseSwiftAdapter", .product(name: "SoarClientTesting", package: "Soar")]),
    ],
    swiftLanguageModes: [.v6]
)
