import Foundation

/// Why a file named on the command line or in a variable cannot be read, in the words an operator
/// acts on: "no such file", "a directory, not a file", "permission denied".
public enum FileProblem {
    public static func reason(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "a directory, not a file" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "permission denied" }
        return "not UTF-8 text"
    }
}
