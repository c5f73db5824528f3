import Foundation
import SoarCore
import SoarCrypto

/// The bytes of stored objects: one file per version under `objects/`, named by the version
/// (a UUID the server made), never by the object's name, so no name reaches the file system.
///
/// An upload is written to a file under `uploads/`, flushed, then renamed into place: a reader
/// sees a whole version or none, and a crash leaves a temporary file, never a partial object.
/// Versions are never rewritten, only added and removed, so several processes can share the
/// directory and a copy is a hard link.
public struct ObjectFiles: Sendable {
    public let root: String
    private var uploads: String { root + "/uploads" }
    private var objects: String { root + "/objects" }
    /// Image renders, `renders/<version>/<key>`: kept until their version goes.
    private var renders: String { root + "/renders" }

    /// Creates the directories when missing.
    ///
    /// - Throws: ``StorageError`` when the directory cannot be made or written.
    public init(root: String) throws(StorageError) {
        self.root = root
        for directory in [root, root + "/uploads", root + "/objects", root + "/renders"] {
            if mkdir(directory, 0o700) != 0, errno != EEXIST {
                throw .internal("cannot create the storage directory \(directory): \(String(cString: strerror(errno)))")
            }
        }
        guard access(root + "/uploads", W_OK) == 0 else { throw .internal("the storage directory \(root) is not writable") }
    }

    /// A new temporary file for an upload of at most `limit` bytes.
    public func begin(limit: Int64) throws(StorageError) -> ObjectUpload {
        let path = uploads + "/" + RandomUUID.lowercase() + ".part"
        let descriptor = Foundation.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .internal("cannot create an upload file: \(String(cString: strerror(errno)))") }
        return ObjectUpload(descriptor: descriptor, path: path, limit: limit)
    }

    /// Flushes the upload and puts it in place as `version`.
    public func keep(_ upload: ObjectUpload, as version: String) throws(StorageError) {
        try place(upload, at: try path(of: version, creating: true))
    }

    /// Flushes an upload and renames it to `target`: whole there, or not there.
    private func place(_ upload: ObjectUpload, at target: String) throws(StorageError) {
        try upload.close()
        guard rename(upload.path, target) == 0 else {
            let reason = String(cString: strerror(errno))
            upload.discard()
            throw .internal("cannot put a file in place: \(reason)")
        }
        Self.flushDirectory(target)
    }

    /// Another version with the same bytes (a copy), as a hard link.
    public func link(_ version: String, to newVersion: String) throws(StorageError) {
        let source = try path(of: version), target = try path(of: newVersion, creating: true)
        guard Foundation.link(source, target) == 0 else {
            throw errno == ENOENT ? .missingBytes : .internal("cannot copy an object: \(String(cString: strerror(errno)))")
        }
        Self.flushDirectory(target)
    }

    /// The version's file, opened for reading, and its size; nil when it is not there.
    public func open(_ version: String) -> (descriptor: Int32, size: Int64)? {
        guard let path = try? path(of: version) else { return nil }
        return Self.openRegular(path)
    }

    /// The file's path, for a reader that takes a name (libvips).
    func location(of version: String) throws(StorageError) -> String { try path(of: version) }

    private static func openRegular(_ path: String) -> (descriptor: Int32, size: Int64)? {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        return (descriptor, Int64(status.st_size))
    }

    /// Removes a version's file (a reader that opened it keeps reading it) and its renders.
    public func remove(_ version: String) {
        guard let path = try? path(of: version) else { return }
        unlink(path)
        try? FileManager.default.removeItem(atPath: renders + "/" + version)
    }

    /// A render of `version` made before, opened.
    func openRender(version: String, key: String) -> (descriptor: Int32, size: Int64)? {
        guard (try? path(of: version)) != nil else { return nil }
        return Self.openRegular(renders + "/" + version + "/" + key)
    }

    /// Keeps a render of `version` (written, flushed, renamed, as an upload) and opens it.
    func keepRender(_ bytes: Data, version: String, key: String) throws(StorageError) -> (descriptor: Int32, size: Int64) {
        _ = try path(of: version)
        let directory = renders + "/" + version
        if mkdir(directory, 0o700) != 0, errno != EEXIST { throw .internal("cannot create \(directory): \(String(cString: strerror(errno)))") }
        let upload = try begin(limit: Int64(bytes.count))
        let failure = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> StorageError? in
            do throws(StorageError) { try upload.write(raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        let target = directory + "/" + key
        try place(upload, at: target)
        guard let opened = Self.openRegular(target) else { throw .internal("cannot open a render just kept") }
        return opened
    }

    /// Removes what a crash or a lost race left: uploads not written to for `age`, and versions
    /// no row names (`referenced` says which are) that are older than `age`, so a version just
    /// put in place, whose row is being written, stays.
    ///
    /// - Returns: how many files were removed.
    @discardableResult
    public func sweep(olderThan age: TimeInterval, now: Date = Date(), referenced: (String) -> Bool) -> Int {
        let limit = now.timeIntervalSince1970 - age
        var removed = 0
        func old(_ path: String) -> Bool {
            var status = stat()
            // A hard link (a copy) keeps its source's mtime; its ctime is the link's.
            return lstat(path, &status) == 0 && TimeInterval(max(status.st_mtim.tv_sec, status.st_ctim.tv_sec)) < limit
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? [] where old(uploads + "/" + name) {
            if unlink(uploads + "/" + name) == 0 { removed += 1 }
        }
        for version in (try? FileManager.default.contentsOfDirectory(atPath: renders)) ?? [] where !referenced(version) && old(renders + "/" + version) {
            if (try? FileManager.default.removeItem(atPath: renders + "/" + version)) != nil { removed += 1 }
        }
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? [] {
            for version in (try? FileManager.default.contentsOfDirectory(atPath: objects + "/" + shard)) ?? [] {
                let path = objects + "/" + shard + "/" + version
                guard old(path), !referenced(version) else { continue }
                if unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// `objects/<first two characters>/<version>`; a version is a UUID this server made.
    private func path(of version: String, creating: Bool = false) throws(StorageError) -> String {
        guard version.utf8.count == 36, version.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }) else {
            throw .internal("not a version: \(version.prefix(40))")
        }
        let shard = objects + "/" + version.prefix(2)
        if creating, mkdir(shard, 0o700) != 0, errno != EEXIST {
            throw .internal("cannot create \(shard): \(String(cString: strerror(errno)))")
        }
        return shard + "/" + version
    }

    /// The rename is durable once the directory holding it is flushed.
    private static func flushDirectory(_ file: String) {
        let directory = String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)])
        let descriptor = Foundation.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// An upload being written to its temporary file: its size and checksum as it grows.
public final class ObjectUpload: @unchecked Sendable {
    let path: String
    private var descriptor: Int32
    /// The most bytes it may hold (the bucket's or the server's limit).
    public let limit: Int64
    public private(set) var size: Int64 = 0
    private let md5 = StreamingMD5()
    /// Set once closed: the MD5 of the bytes, in hex (the object's ETag).
    public private(set) var checksum = ""

    init(descriptor: Int32, path: String, limit: Int64) {
        self.descriptor = descriptor
        self.path = path
        self.limit = limit
    }

    /// Appends bytes.
    ///
    /// - Throws: ``StorageError/entityTooLarge`` past the limit (nothing more is written).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        guard size + Int64(bytes.count) <= limit else { throw .entityTooLarge }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw .internal("cannot write an upload: \(String(cString: strerror(errno)))") }
            offset += written
        }
        md5.update(bytes)
        size += Int64(bytes.count)
    }

    /// Flushes and closes the file.
    func close() throws(StorageError) {
        guard descriptor >= 0 else { return }
        defer {
            Foundation.close(descriptor)
            descriptor = -1
        }
        guard fsync(descriptor) == 0 else { throw .internal("cannot flush an upload: \(String(cString: strerror(errno)))") }
        checksum = md5.finish()
    }

    /// Removes the temporary file (an upload refused or failed).
    public func discard() {
        if descriptor >= 0 {
            Foundation.close(descriptor)
            descriptor = -1
        }
        unlink(path)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }
}
