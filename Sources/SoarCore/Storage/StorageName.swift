/// An object's name read as Supabase Storage's SQL functions read it (`storage.foldername`,
/// `storage.filename`, `storage.extension`), for the stores that have no such SQL.
public enum StorageName {
    /// The folders: every part but the last (`a/b/c.png`: `a`, `b`).
    public static func folders(_ name: String) -> [String] {
        Array(parts(name).dropLast())
    }

    /// The last part (`c.png`).
    public static func file(_ name: String) -> String {
        parts(name).last ?? ""
    }

    /// What follows the last dot of the last part (`png`); the whole last part when it has no
    /// dot, as Supabase's `storage.extension` answers.
    public static func fileExtension(_ name: String) -> String {
        let file = file(name)
        guard let dot = file.lastIndex(of: ".") else { return file }
        return String(file[file.index(after: dot)...])
    }

    private static func parts(_ name: String) -> [String] {
        name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }
}
