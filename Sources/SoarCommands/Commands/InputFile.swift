import Foundation

/// A file named on the command line, read to its end: `-` is standard input, and pipes
/// (`/dev/stdin`, a shell's `<(…)`) are read like regular files.
enum InputFile {
    /// - Throws: a usage error naming the path when it is missing, a directory, or unreadable.
    static func read(_ path: String) throws(CommandError) -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .usage("cannot read \(path): no such file")
        }
        if isDirectory.boolValue { throw .usage("cannot read \(path): it is a directory") }
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .usage("cannot read \(path): it is not readable")
        }
    }
}
