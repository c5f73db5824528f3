import Foundation
import SoarSchema
import SoarStore

/// Which of the app's migrations a command applies: `--migrations DIR`, else
/// `./supabase/migrations` (the Supabase CLI's folder), else the starter Soar ships.
struct MigrationsChoice {
    static let option = Option("--migrations", value: "DIR", help: "The app's migrations (default ./supabase/migrations; without it, the built-in starter).")

    /// The folder, or nil for the built-in starter.
    let folder: String?

    /// - Throws: ``CommandError/usage(_:)`` for a `--migrations` folder that does not exist.
    init(_ arguments: Arguments) throws(CommandError) {
        if let given = arguments.value("--migrations") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: given, isDirectory: &isFolder), isFolder.boolValue else {
                throw .usage("--migrations \(given): no such folder (soar init writes supabase/migrations)")
            }
            folder = APNsEmulatorCommand.absolute(given)
        } else {
            let standard = APNsEmulatorCommand.absolute(AppSchema.folder)
            folder = FileManager.default.fileExists(atPath: standard) ? standard : nil
        }
    }

    /// The files, in order.
    ///
    /// - Throws: ``CommandError/configuration(_:)`` for a file that is not named as a migration.
    func files() throws(CommandError) -> [MigrationFile] {
        guard let folder else { return AppSchema.starters }
        do { return try MigrationFile.folder(folder) } catch { throw .configuration(error.message) }
    }

    /// How the start-up banner and `soar migrate` name them.
    var name: String { folder ?? "the built-in starter (soar init writes it to \(AppSchema.folder) to edit)" }
}
