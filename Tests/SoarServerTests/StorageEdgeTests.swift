import Foundation
import SoarClientTesting
import SoarCore
import SoarServer
import SoarStorage
import SoarTesting
import Testing

/// Storage's edges with the server in process and its clock in hand: signed URLs expire, a row
/// whose file is gone is never served as empty, a refused upload leaves no file, and the sweep
/// takes only what no row names.
@Suite(.timeLimit(.minutes(2))) struct StorageEdgeTests {
    /// Version files under `storage/objects`.
    static func versions(_ fixture: ServerFixture) -> [String] {
        let root = fixture.directory.path + "/storage/objects"
        return ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []).filter { $0.count > 3 }.map { root + "/" + $0 }
    }

    func privateBucket(_ fixture: ServerFixture) async throws {
        let made = try await fixture.call(
            "POST", "/storage/v1/bucket", bearer: fixture.serviceKey, body: #"{"id":"vault","name":"vault","public":false,"file_size_limit":100,"allowed_mime_types":["text/plain"]}"#)
        #expect(made.status == 200, "\(made.text)")
    }

    func upload(_ fixture: ServerFixture, _ name: String, _ text: String, bearer: String? = nil, type: String = "text/plain") async throws -> ServerFixture.Answer {
        try await fixture.call("POST", "/storage/v1/object/vault/\(name)", bearer: bearer ?? fixture.serviceKey, headers: ["content-type": type], body: text)
    }

    @Test func aSignedURLWorksUntilItExpires() async throws {
        let time = ManualTime(Date())
        let fixture = try await ServerFixture.start(now: time.now)
        try await privateBucket(fixture)
        #expect(try await upload(fixture, "a.txt", "secret").status == 200)
        let signed = try await fixture.call("POST", "/storage/v1/object/sign/vault/a.txt", bearer: fixture.serviceKey, body: #"{"expiresIn":60}"#)
        let path = try #require(signed.object["signedURL"]?.stringValue, "\(signed.text)")
        #expect(try await fixture.call("GET", "/storage/v1" + path).text == "secret")
        time.advance(by: 59)
        #expect(try await fixture.call("GET", "/storage/v1" + path).text == "secret", "still good a second before")
        time.advance(by: 2)
        let expired = try await fixture.call("GET", "/storage/v1" + path)
        #expect(expired.status == 400 && expired.object["error"] == "InvalidJWT" && expired.object["message"] == "\"exp\" claim timestamp check failed", "\(expired.text)")
    }

    @Test func aRowWhoseFileIsGoneIsNotFoundNeverEmpty() async throws {
        let fixture = try await ServerFixture.start()
        try await privateBucket(fixture)
        #expect(try await upload(fixture, "gone.txt", "bytes").status == 200)
        let files = Self.versions(fixture)
        #expect(files.count == 1)
        for file in files { try FileManager.default.removeItem(atPath: file) }
        let read = try await fixture.call("GET", "/storage/v1/object/vault/gone.txt", bearer: fixture.serviceKey)
        // Storage's errors are 400s with the status in the body, as Supabase's.
        #expect(read.status == 400 && read.object["statusCode"] == "404" && read.object["message"] == "The resource was not found", "\(read.status) \(read.text)")
        let ranged = try await fixture.call("GET", "/storage/v1/object/vault/gone.txt", bearer: fixture.serviceKey, headers: ["range": "bytes=0-1"])
        #expect(ranged.object["statusCode"] == "404", "\(ranged.status) \(ranged.text)")
    }

    @Test func aRefusedUploadLeavesNoFile() async throws {
        let fixture = try await ServerFixture.start()
        try await privateBucket(fixture)
        let user = try await fixture.signUp("vault@example.com")
        let refusals = [
            try await upload(fixture, "a.bin", "x", type: "application/octet-stream"),  // a type the bucket refuses
            try await upload(fixture, "big.txt", String(repeating: "x", count: 500)),  // over its 100 bytes
            try await upload(fixture, "mine.txt", "x", bearer: user.token),  // no policy lets a user write
            try await upload(fixture, "a/%2E%2E/b.txt", "x"),  // a name with a .. part
        ]
        #expect(refusals.allSatisfy { $0.status >= 400 }, "\(refusals.map(\.text))")
        #expect(Self.versions(fixture).isEmpty, "\(Self.versions(fixture))")
        let uploads = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path + "/storage/uploads")
        #expect(uploads.isEmpty, "no upload left half way: \(uploads)")
    }

    @Test func theSweepTakesOnlyOldFilesNoRowNames() async throws {
        let time = ManualTime(Date())
        let fixture = try await ServerFixture.start(now: time.now)
        try await privateBucket(fixture)
        #expect(try await upload(fixture, "kept.txt", "kept").status == 200)
        let kept = try #require(Self.versions(fixture).first)
        // A crash between a file put in place and its row: a version no row names.
        let orphan = (kept as NSString).deletingLastPathComponent + "/" + UUID().uuidString.lowercased()
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: orphan))
        let storage = try #require(fixture.server.storage)
        #expect(try storage.sweep(olderThan: 3600) == 0, "a new file may still be getting its row")
        time.advance(by: 7200)
        #expect(try storage.sweep(olderThan: 3600) == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan) && FileManager.default.fileExists(atPath: kept))
        #expect(try await fixture.call("GET", "/storage/v1/object/vault/kept.txt", bearer: fixture.serviceKey).text == "kept")
    }
}
