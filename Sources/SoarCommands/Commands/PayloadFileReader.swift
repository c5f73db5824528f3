import Foundation
import SoarCore

/// Reads a payload file (`-` is standard input) for the commands that take one.
enum PayloadFileReader {
    /// - Throws: a usage error when the file cannot be read, a failure when it is not a valid payload.
    static func read(_ path: String) throws(CommandError) -> SimulatorFile {
        let data = try InputFile.read(path)
        do {
            return try SimulatorFile(data: data)
        } catch {
            throw .failure("invalid payload in \(path): \(error.description)")
        }
    }
}
