import Foundation

/// The console's files, compiled into the binary: no build step, nothing fetched from elsewhere.
public enum ConsoleAssets {
    public struct Asset: Sendable {
        public let bytes: Data
        public let type: String
    }

    /// The file a console path names, or nil.
    public static func asset(at path: String) -> Asset? {
        switch path {
        case "/console/", "/console/index.html": Asset(bytes: Data(PackageResources.index_html), type: "text/html; charset=utf-8")
        case "/console/console.js": Asset(bytes: Data(PackageResources.console_js), type: "text/javascript; charset=utf-8")
        case "/console/console.css": Asset(bytes: Data(PackageResources.console_css), type: "text/css; charset=utf-8")
        case "/console/device", "/console/device/": Asset(bytes: Data(PackageResources.device_html), type: "text/html; charset=utf-8")
        case "/console/device.js": Asset(bytes: Data(PackageResources.device_js), type: "text/javascript; charset=utf-8")
        default: nil
        }
    }
}
