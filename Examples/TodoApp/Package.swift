// swift-tools-version:6.0
import PackageDescription

/// An app started on Soar: its screens' logic in TodoKit (SoarClient only), a command-line front
/// end, and view-model tests against SoarClientTesting's fakes.
let package = Package(
    name: "TodoApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "Soar", path: "../..")],
    targets: [
        .target(name: "TodoKit", dependencies: [.product(name: "SoarClient", package: "Soar")]),
        .executableTarget(name: "todoapp", dependencies: ["TodoKit"]),
        .testTarget(
            name: "TodoKitTests",
            dependencies: ["TodoKit", .product(name: "SoarClient", package: "Soar"), .product(name: "SoarClientTesting", package: "Soar")]),
    ],
    swiftLanguageModes: [.v6]
)
