import Foundation
import SoarSchema
import SoarStore

/// `soar migration new NAME`: the next `supabase/migrations/<timestamp>_<name>.sql`, empty.
struct MigrationNewCommand: Command {
    static let name = "migration new"
    static let summary = "Create the next migration file, supabase/migrations/<timestamp>_NAME.sql."
    static let arguments = "NAME"
    static let options = [Option("--migrations", value: "DIR", help: "The folder (default ./supabase/migrations).")]
    static let discussion = "NAME: lowercase letters, digits and underscores (add_notes). Exit codes: 0 created; 2 a bad name."

    let folder: String
    let migrationName: String
    let now: Date

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.count == 1 else { throw .usage("give the migration's name: soar migration new add_notes") }
        migrationName = arguments.positionals[0]
        guard !migrationName.isEmpty, migrationName.utf8.count <= 100,
            migrationName.unicodeScalars.allSatisfy({ CharacterSet.lowercaseLetters.contains($0) && $0.isASCII || ("0"..."9").contains($0) || $0 == "_" })
        else {
            throw .usage("\(migrationName): a migration's name is lowercase letters, digits and underscores, such as add_notes")
        }
        folder = APNsEmulatorCommand.absolute(arguments.value("--migrations") ?? AppSchema.folder)
        now = Date()
    }

    func run(_ console: Console) async throws(CommandError) {
        let existing: [MigrationFile]
        do { existing = try MigrationFile.folder(folder) } catch { throw .configuration(error.message) }
        let version = Self.version(after: existing.last?.version, at: now)
        let path = (folder as NSString).appendingPathComponent("\(version)_\(migrationName).sql")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "-- \(migrationName)\n".write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw .configuration("cannot write \(path): \(error.localizedDescription)")
        }
        console.print("created \(path)")
    }

    /// The time as `yyyyMMddHHmmss` in UTC, or one past the newest file's when the clock is behind it.
    static func version(after latest: String?, at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(format: "%04d%02d%02d%02d%02d%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
        guard let latest, let newest = UInt64(latest), let current = UInt64(stamp), current <= newest else { return stamp }
        return String(newest + 1)
    }
}
