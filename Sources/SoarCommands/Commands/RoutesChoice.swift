import Foundation
import SoarCore

/// Which route table a command reads: `--routes FILE`, else `./supabase/routes.json` (what
/// `soar init` writes), else the seed app's table.
struct RoutesChoice {
    static let option = Option("--routes", value: "FILE", help: "The app's route table (default ./supabase/routes.json; without it, the seed app's).")
    static let standard = "supabase/routes.json"

    let table: RouteTable

    /// - Throws: ``CommandError/configuration(_:)`` for a file that cannot be read or is not a route table.
    init(_ arguments: Arguments) throws(CommandError) {
        let path = arguments.value("--routes") ?? (FileManager.default.fileExists(atPath: Self.standard) ? Self.standard : nil)
        guard let path else {
            table = .seedApp
            return
        }
        do { table = try RouteTable(file: path) } catch { throw .configuration(error.description) }
    }
}
