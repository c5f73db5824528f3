import Foundation
import SoarCore
import Testing

@testable import SoarStorage

@Suite(.timeLimit(.minutes(1))) struct ObjectFilesTests {
    static func directory() -> String {
        let path = NSTemporaryDirectory() + "soar-files-" + RandomUUID.lowercase()
        return path
    }

    @Test func anUploadIsInvisibleUntilKeptAndTheSweepTakesWhatNoRowNames() throws {
        let root = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try ObjectFiles(root: root)
        let upload = try files.begin(limit: 10)
        try Array("hello".utf8).withUnsafeBytes { try upload.write($0) }
        let version = RandomUUID.lowercase()
        #expect(files.open(version) == nil, "not there before it is kept")
        try files.keep(upload, as: version)
        #expect(upload.checksum == "5d41402abc4b2a76b9719d911017c592", "MD5 of hello")
        let opened = try #require(files.open(version))
        close(opened.descriptor)
        #expect(opened.size == 5)
        let orphan = try files.begin(limit: 10)
        _ = orphan
        let later = Date().addingTimeInterval(7200)
        #expect(files.sweep(olderThan: 3600, now: later, referenced: { $0 == version }) == 1, "the orphan upload goes; the named version stays")
        #expect(files.open(version).map { close($0.descriptor) } != nil)
        #expect(files.sweep(olderThan: 3600, now: later, referenced: { _ in false }) == 1, "a version no row names goes")
        #expect(files.open(version) == nil)
    }

    @Test func anUploadPastItsLimitIsRefused() throws {
        let root = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let upload = try ObjectFiles(root: root).begin(limit: 4)
        #expect(throws: StorageError.entityTooLarge) { try Array("hello".utf8).withUnsafeBytes { try upload.write($0) } }
    }

    @Test func versionsAreTheServersUUIDsOnly() throws {
        let root = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try ObjectFiles(root: root)
        #expect(files.open("../../etc/passwd") == nil)
        #expect(throws: StorageError.self) { try files.keep(try files.begin(limit: 1), as: "../x") }
    }

    @Test func keysFollowSupabasesRule() {
        for good in ["a.png", "user/avatar (1).png", "a/b/c+d=e@f;g:h,i?j!k'l*m&n$o"] { #expect(throws: Never.self) { try StorageService.requireValidKey(good) } }
        for bad in ["", "/a", "a/../b", "./a", "a\nb", "a\u{0}b", "é.png", "a#b", "a%b"] { #expect(throws: StorageError.self) { try StorageService.requireValidKey(bad) } }
    }
}
