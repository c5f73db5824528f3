import Foundation
import SoarCore
import SoarSchema
import SoarStore

/// `soar init`: writes the starter migration (the seed app's tables, policies and grants) into
/// `supabase/migrations/`, where the app's own migrations go after it, and the seed app's route
/// table beside it (`supabase/routes.json`).
struct InitCommand: Command {
    static let name = "init"
    static let summary = "Write supabase/migrations/ with the seed app's starter schema, to edit and add to."
    static let options = [Option("--migrations", value: "DIR", help: "Where to write it (default ./supabase/migrations).")]
    static let discussion = """
        The starter is plain Supabase SQL (tables, row-level security policies, grants): edit it
        before its first `soar migrate`, then add files with `soar migration new NAME`. A database
        that already applied the built-in starter takes the written file as applied, unchanged.
        routes.json, written next to the migrations folder unless one is there, is the app's route
        table (URL schemes, universal-link hosts, payload keys, paths): `soar route` and
        `soar simulate` read it, and so can the app (RouteTable(file:) or RouteTable(json:)).
        Exit codes: 0 written; 2 the folder already holds migrations.
        """

    let folder: String

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        folder = APNsEmulatorCommand.absolute(arguments.value("--migrations") ?? AppSchema.folder)
    }

    func run(_ console: Console) async throws(CommandError) {
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter { $0.hasSuffix(".sql") } ?? []
        guard existing.isEmpty else {
            throw .usage("\(folder) already holds \(existing.count) migration(s): soar init writes only into an empty folder")
        }
        for file in AppSchema.starters {
            let path = (folder as NSString).appendingPathComponent(file.fileName)
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try file.sql.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw .configuration("cannot write \(path): \(error.localizedDescription)")
            }
            console.print("wrote \(path)")
        }
        let routes = ((folder as NSString).deletingLastPathComponent as NSString).appendingPathComponent("routes.json")
        if !FileManager.default.fileExists(atPath: routes) {
            do { try RouteTable.seedApp.fileText.write(toFile: routes, atomically: true, encoding: .utf8) } catch {
                throw .configuration("cannot write \(routes): \(error.localizedDescription)")
            }
            console.print("wrote \(routes) (the seed app's routes: make them your app's)")
        }
        console.print("next: edit it, add your own with `soar migration new NAME`, then `soar migrate` (soar serve applies them too)")
    }
}
