import Foundation
import SoarTesting
import Testing

/// Supabase Storage against the `soar` binary, through PyPI's supabase client (storage3), on
/// SQLite or Postgres: the starter's avatars flow, public and private buckets, signed URLs, HTTP's
/// ranges and caching, bad input, concurrent upserts, and a server killed under an upload.
///
/// One test at a time: each blocks a thread of the test runner's small pool while its peer runs.
@Suite(.serialized, .timeLimit(.minutes(3))) struct StorageTests {
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/\(name)").standardized.path
    }

    struct Started {
        let server: BackgroundProcess
        let url: String
        let anon: String
        let service: String
    }

    static func start(_ database: TestDatabase, storage: String) throws -> Started {
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0", "--storage-dir", storage] + database.arguments, environment: database.environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        return Started(server: server, url: url, anon: anon, service: service)
    }

    @Test(.ownThread) func theSupabaseClientsStorageWorksUnchanged() throws {
        let dir = TemporaryDirectory("soar-storage")
        let started = try Self.start(try TestDatabase(directory: dir.path), storage: dir.path + "/storage")
        let run = try ProcessRunner.run("python3", [Self.script("storage_e2e.py"), started.url, started.anon, started.service], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(started.server.stop() == 0)
    }

    /// The app's own storage policies, with storage.foldername, filename and extension, and the
    /// rest of the API: a bucket read and changed, listing's options, If-Modified-Since, forged tokens.
    @Test(.ownThread) func policiesOnFoldersFilesAndExtensionsAndTheRestOfTheAPI() throws {
        let dir = TemporaryDirectory("soar-storage-policies")
        // The starter's files (a Postgres test database has them applied already), then the app's own.
        let migrations = dir.path + "/migrations"
        let initialized = try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations])
        #expect(initialized.status == 0, "\(initialized.stderr)")
        try """
            insert into storage.buckets (id, name, public) values ('docs', 'docs', false);
            create policy "PDFs in one's own folder" on storage.objects for insert to authenticated
              with check (bucket_id = 'docs' and storage.extension(name) = 'pdf' and (storage.foldername(name))[1] = (select auth.uid())::text);
            create policy "Own files, and every README" on storage.objects for select to authenticated
              using (bucket_id = 'docs' and (storage.filename(name) = 'README.pdf' or (storage.foldername(name))[1] = (select auth.uid())::text));
            """.write(toFile: migrations + "/20260101000000_docs.sql", atomically: true, encoding: .utf8)
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0", "--storage-dir", dir.path + "/storage", "--migrations", migrations] + database.arguments,
            environment: database.environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        let run = try ProcessRunner.run("python3", [Self.script("storage_policies.py"), url, anon, service], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
    }

    @Test(.ownThread) func imagesAreRenderedWithinTheirLimits() throws {
        let dir = TemporaryDirectory("soar-storage-images")
        let started = try Self.start(try TestDatabase(directory: dir.path), storage: dir.path + "/storage")
        let run = try ProcessRunner.run("python3", [Self.script("storage_images.py"), started.url, started.service], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(started.server.stop() == 0)
    }

    @Test(.ownThread) func upsertsOfOnePathEndWithOneWholeObject() throws {
        let dir = TemporaryDirectory("soar-storage-races")
        let started = try Self.start(try TestDatabase(directory: dir.path), storage: dir.path + "/storage")
        let run = try ProcessRunner.run("python3", [Self.script("storage_races.py"), started.url, started.service, "upserts"], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(started.server.stop() == 0)
        // Each upsert's version file is put in place before its row; the losers' are left to the sweep.
        let versions = try FileManager.default.subpathsOfDirectory(atPath: dir.path + "/storage/objects").filter { $0.count > 3 }
        #expect(versions.count >= 1)
    }

    @Test(.ownThread) func aClientThatGivesUpHalfWayLeavesNothing() throws {
        let dir = TemporaryDirectory("soar-storage-truncated")
        let started = try Self.start(try TestDatabase(directory: dir.path), storage: dir.path + "/storage")
        let run = try ProcessRunner.run("python3", [Self.script("storage_races.py"), started.url, started.service, "truncated"], timeout: 60)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        // Its temporary file goes when libmicrohttpd notices the client gone (its idle timeout,
        // 30 s at the latest) or at the next sweep; not waited for here, to keep the runner's
        // threads free.
        #expect(started.server.stop() == 0)
    }

    @Test(.ownThread) func aServerKilledUnderAnUploadLeavesNoObject() throws {
        let dir = TemporaryDirectory("soar-storage-crash")
        let database = try TestDatabase(directory: dir.path)
        let first = try Self.start(database, storage: dir.path + "/storage")
        let sender = try BackgroundProcess("/usr/bin/env", ["python3", Self.script("storage_races.py"), first.url, first.service, "partial"])
        #expect(sender.readLine(timeout: 30) == "sent", "\(sender.standardError)")
        // Killed once the half it sent is being written (the server reads it on its own time).
        let uploads = dir.path + "/storage/uploads"
        #expect(eventually(within: .seconds(20)) { ((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).count == 1 })
        kill(first.server.pid, SIGKILL)
        _ = first.server.stop()
        _ = sender.stop()
        let left = try FileManager.default.contentsOfDirectory(atPath: uploads)
        #expect(left.count == 1, "the half upload is a temporary file, not an object: \(left)")
        let second = try Self.start(database, storage: dir.path + "/storage")
        let run = try ProcessRunner.run("python3", [Self.script("storage_races.py"), second.url, second.service, "after"], timeout: 60)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(second.server.stop() == 0)
    }
}
