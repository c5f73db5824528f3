import Foundation
import SoarCrypto

/// One file of the app's migrations: `<version>_<name>.sql`, as the Supabase CLI names them.
public struct MigrationFile: Sendable, Equatable {
    /// The digits before the first underscore (a timestamp, `20240101120000`): the order they run in.
    public let version: String
    public let name: String
    public let sql: String
    /// Where it came from, for messages (`supabase/migrations/2024…_notes.sql`).
    public let path: String

    public init(version: String, name: String, sql: String, path: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.path = path
    }

    public var fileName: String { "\(version)_\(name).sql" }

    /// SHA-256 of the text, in hex: an applied file that changes no longer matches.
    public var checksum: String { sha256(Data(sql.utf8)).map { String(format: "%02x", $0) }.joined() }

    /// `path:line:column: message` for an error at a byte offset of the text.
    public func failure(_ error: SQLError) -> MigrationError {
        let (line, column) = SQLError.position(of: error.offset, in: sql)
        return MigrationError("\(path):\(line):\(column): \(error.message)")
    }

    /// Reads `<version>_<name>.sql` files of a folder, in version order. A missing folder has none.
    ///
    /// - Throws: ``MigrationError`` for a file whose name has no version, or two with one version.
    public static func folder(_ directory: String) throws(MigrationError) -> [MigrationFile] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var files: [MigrationFile] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            let path = (directory as NSString).appendingPathComponent(name)
            let stem = String(name.dropLast(4))
            let parts = stem.split(separator: "_", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isNumber) else {
                throw MigrationError("\(path): a migration is named <version>_<name>.sql, the version in digits (soar migration new NAME makes one)")
            }
            guard let data = FileManager.default.contents(atPath: path), let sql = String(data: data, encoding: .utf8) else {
                throw MigrationError("\(path): cannot be read as UTF-8 text")
            }
            if let twin = files.first(where: { $0.version == parts[0] }) {
                throw MigrationError("\(path): version \(parts[0]) is also \(twin.path); each migration needs its own")
            }
            files.append(MigrationFile(version: parts[0], name: parts[1], sql: sql, path: path))
        }
        return files.sorted { ($0.version.count, $0.version) < ($1.version.count, $1.version) }
    }
}

/// A migration that cannot be applied: the message names the file (and line and column).
public struct MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What an applied migration's record holds.
public struct AppliedMigration: Sendable, Equatable {
    public let version: String
    public let name: String
    public let checksum: String

    public init(version: String, name: String, checksum: String) {
        self.version = version
        self.name = name
        self.checksum = checksum
    }
}

extension MigrationFile {
    /// The files not yet applied, after checking that the applied ones did not change.
    ///
    /// - Throws: ``MigrationError`` naming an applied file whose text changed since.
    public static func pending(_ files: [MigrationFile], applied: [AppliedMigration]) throws(MigrationError) -> [MigrationFile] {
        let byVersion = Dictionary(applied.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for file in files {
            if let record = byVersion[file.version], record.checksum != file.checksum {
                throw MigrationError(
                    "\(file.path) was applied and has changed since (its checksum differs): leave applied migrations as they are and add a new one (soar migration new NAME)")
            }
        }
        // As the Supabase CLI: every applied migration is still in the folder, and a new file is
        // newer than the last applied one (else the database's history and the folder's differ).
        let present = Set(files.map(\.version))
        if let missing = applied.first(where: { !present.contains($0.version) }) {
            throw MigrationError(
                "\(missing.version)_\(missing.name).sql was applied to this database but is not in the migrations folder: restore it (soar init writes the starter)")
        }
        let pending = files.filter { byVersion[$0.version] == nil }
        let last = applied.map(\.version).max { ($0.count, $0) < ($1.count, $1) }
        if let last, let older = pending.first(where: { ($0.version.count, $0.version) < (last.count, last) }) {
            throw MigrationError(
                "\(older.path) is older than \(last), the last migration applied: give it a newer version (soar migration new NAME) so every database applies them in one order")
        }
        return pending
    }
}
