import Foundation
import SoarCore

/// Reads a payload file (`-` is standard input) for the commands that take one.
enum PayloadFileReader {
    /// - Throws: a usage error when the file cannot be read, a failure when it is not a valid payload.
    static func read(_ path: String) throws(CommandError) -> SimulatorFile {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw .usage("cannot read \(path): it is a directory")
            }
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw .usage("cannot read \(path): no such file, or it is not readable")
            }
            data = contents
        }
        do {
            return try SimulatorFile(data: data)
        } catch {
            throw .failure("invalid payload in \(path): \(error.description)")
        }
    }
}
