import Foundation
import SoarCore
import SoarCrypto
import SoarAuth
import SoarHTTP
import SoarServer
import SoarTesting
import Testing

@testable import SoarStore

/// What an attack run found: each test failed before its fix.
@Suite(.timeLimit(.minutes(5))) struct HardeningTests {
    /// Makes every write of the fixture's store fail for the database's sake, as a full disk does
    /// (SQLite: the writer turned query-only; Postgres: the database turned read-only).
    static func refuseWrites(_ fixture: ServerFixture, _ refuse: Bool) throws {
        if let sqlite = fixture.server.store as? SQLiteStore {
            try sqlite.writer.betweenTransactions { connection throws(StoreError) in try connection.execute("PRAGMA query_only = \(refuse ? 1 : 0)") }
            return
        }
        let name = String(fixture.server.store.location.split(separator: "/").last ?? "")
        let cluster = try PostgresCluster.shared.get()
        _ = try cluster.psql("postgres", "ALTER DATABASE \(name) SET default_transaction_read_only = \(refuse ? "on" : "off")")
        // The pool's connections take the setting when they reconnect.
        _ = try cluster.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
    }

    @Test func healthSaysUnavailableWhileWritesFailAndSignOutAnswers503() async throws {
        let time = ManualTime()
        let fixture = try await ServerFixture.start(now: time.now)
        let user = try await fixture.signUp("a@example.com")
        #expect(try await fixture.call("GET", "/health").status == 200)

        try Self.refuseWrites(fixture, true)
        time.advance(by: 2)
        // Reads still answer; /health does not say ok.
        _ = try? await fixture.call("GET", "/rest/v1/todos", bearer: user.token)
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status == 200)
        let health = try await fixture.call("GET", "/health")
        #expect(health.status == 503 && health.object["store"] == "unavailable")
        let insert = try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: #"{"title":"x"}"#)
        #expect(insert.status == 503 && insert.object["message"] == "the database is unavailable; try again shortly")
        let signOut = try await fixture.call("POST", "/auth/v1/logout", bearer: user.token)
        #expect(signOut.status == 503, "\(signOut.text)")
        #expect(signOut.object["msg"] == "the database is unavailable; try again shortly" && !signOut.text.contains("XX000"))

        try Self.refuseWrites(fixture, false)
        #expect(try await fixture.call("GET", "/health").status == 503, "answered from the last second's check")
        time.advance(by: 2)
        #expect(try await fixture.call("GET", "/health").status == 200)
        #expect(try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: #"{"title":"x"}"#).status == 201)
    }
}

/// The HTTP layer's own defences, tried with raw sockets as an attacker would.
@Suite(.timeLimit(.minutes(5))) struct HTTPDefenceTests {
    @Test func slowClientsCannotTakeTheServerDown() async throws {
        let fixture = try ServerFixture {
            $0.limits.maxConnectionsPerAddress = 20
            $0.limits.headerTimeoutSeconds = 1
        }
        let port = try #require(UInt16(fixture.url.split(separator: ":").last ?? ""))
        // 40 connections from one address, each with half a request's headers.
        let slow = try (0..<40).map { _ in try RawSocket(port: port, from: "127.0.0.3") }
        for socket in slow { socket.send("GET /health HTTP/1.1\r\nHost: x\r\n") }
        // Another client is answered meanwhile.
        for _ in 0..<3 {
            let health = try RawSocket(port: port, from: "127.0.0.2")
            health.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(health.readAll(timeout: 5).hasPrefix("HTTP/1.1 200"))
        }
        // Past its address's limit a connection is closed at once; the rest when their headers are
        // late (bounded by the deadline, read with a timeout well past it).
        let ended = slow.map { $0.readAll(timeout: 10) }
        #expect(ended.allSatisfy { $0.isEmpty }, "no answer, only the end of the stream: \(ended.filter { !$0.isEmpty })")
        let allEnded = slow.allSatisfy { $0.ended }
        #expect(allEnded)
    }

    @Test func ambiguousFramingIs400OrClosesTheConnection() throws {
        let fixture = try ServerFixture()
        let port = try #require(UInt16(fixture.url.split(separator: ":").last ?? ""))
        // Two lengths: refused, and the rest is never read as a second request.
        let twoLengths = try RawSocket(port: port)
        twoLengths.send("POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 40\r\n\r\nhelloGET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = twoLengths.readAll(timeout: 5)
        #expect(refused.hasPrefix("HTTP/1.1 400") && refused.components(separatedBy: "HTTP/1.1 ").count == 2, "\(refused)")
        #expect(twoLengths.ended)
        // A length and chunked: answered once, then closed (a pipelined request is not read).
        let both = try RawSocket(port: port)
        both.send("POST /auth/v1/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        let answered = both.readAll(timeout: 5)
        #expect(answered.components(separatedBy: "HTTP/1.1 ").count == 2 && answered.lowercased().contains("connection: close"), "\(answered)")
        #expect(both.ended)
    }

    @Test func aNULInTheTargetIs400AndTooManyParametersAre414WithALogLine() async throws {
        let fixture = try await ServerFixture.start()
        let user = try await fixture.signUp("a@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: #"{"title":"a"}"#).status == 201)
        for target in ["/rest/v1/todos%00.css", "/rest/v1/todos?title=eq.a%00b", "/functions/v1/send-push%00.public"] {
            let answer = try await fixture.call("GET", target, bearer: user.token)
            #expect(answer.status == 400, "\(target): \(answer.status)")
        }
        // Over the limit: 414, and the log says so.
        let many = (0..<250).map { "a\($0)=1" }.joined(separator: "&")
        let answer = try await fixture.call("GET", "/rest/v1/todos?\(many)", bearer: user.token)
        #expect(answer.status == 414 && answer.text.contains("250 query parameters"), "\(answer.status) \(answer.text)")
        #expect(fixture.logLines.all.contains { $0.contains("request refused") && $0.contains("414") })
        // Targets of every length up to past the connection's memory: each answered (414 past
        // half of it), or at worst closed at once, never left hanging.
        for kilobytes in [8, 17, 24, 28, 30, 31, 40] {
            let port = try #require(UInt16(fixture.url.split(separator: ":").last ?? ""))
            let socket = try RawSocket(port: port)
            socket.send("GET /rest/v1/todos?select=\(String(repeating: "x", count: kilobytes << 10)) HTTP/1.1\r\nHost: x\r\nConnection: close\r\napikey: \(fixture.anonKey)\r\n\r\n")
            let answer = socket.readAll(timeout: 5)
            #expect(socket.ended || answer.hasPrefix("HTTP/1.1 400"), "\(kilobytes) KB: \(answer.prefix(40))")
            if kilobytes > 16 { #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 414") || answer.hasPrefix("HTTP/1.1 431"), "\(kilobytes) KB: \(answer.prefix(40))") }
        }
        // Under the limit, the request goes through.
        let some = (0..<150).map { "or=(title.eq.\($0))" }.joined(separator: "&")
        #expect(try await fixture.call("GET", "/rest/v1/todos?\(some)", bearer: user.token).status != 414)
    }
}

/// A client socket from a chosen loopback address, for requests no HTTP library would send.
final class RawSocket {
    private let descriptor: Int32
    private(set) var ended = false

    init(port: UInt16, from source: String = "127.0.0.1") throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else {
            close(descriptor)
            throw FixtureError("cannot connect from \(source): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) { send(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBufferPointer { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }

    /// Everything until the server closes the stream (``ended``), or what came by the timeout.
    func readAll(timeout: TimeInterval) -> String {
        var received = [UInt8]()
        let deadline = Date() + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { break }
            let count = recv(self.descriptor, &buffer, buffer.count, 0)
            if count <= 0 {
                ended = true
                break
            }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// What the attack run found in auth and operations.
@Suite(.timeLimit(.minutes(5))) struct AuthHardeningTests {
    @Test func metadataIsBoundedAsItRidesInEveryToken() async throws {
        let fixture = try await ServerFixture.start()
        let big = JSONValue.object(["bio": .string(String(repeating: "x", count: 200_000))]).jsonText
        let refused = try await fixture.call("POST", "/auth/v1/signup", body: #"{"email":"a@example.com","password":"correct-horse","data":\#(big)}"#)
        #expect(refused.status == 400 && refused.text.contains("user_metadata is over 4096 bytes"), "\(refused.status) \(refused.text)")
        let user = try await fixture.signUp("a@example.com")
        let grown = try await fixture.call("PUT", "/auth/v1/user", bearer: user.token, body: #"{"data":\#(big)}"#)
        #expect(grown.status == 400)
        let small = try await fixture.call("PUT", "/auth/v1/user", bearer: user.token, body: #"{"data":{"name":"Ada"}}"#)
        #expect(small.status == 200)
        // The user's requests still fit in the server's header limits.
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status == 200)
    }

    /// Even on loopback: a reverse proxy on the same machine would publish it.
    @Test func metricsNeedTheServiceKeyUnlessMadePublic() async throws {
        let open = try ServerFixture { $0.publicMetrics = true }
        #expect(try await open.call("GET", "/metrics", headers: ["apikey": ""]).status == 200, "--public-metrics")
        let guarded = try await ServerFixture.start()
        #expect(try await guarded.call("GET", "/metrics", headers: ["apikey": ""]).status == 401)
        #expect(try await guarded.call("GET", "/metrics").status == 401, "the anon key is not enough")
        #expect(try await guarded.call("GET", "/metrics", bearer: guarded.serviceKey, headers: ["apikey": guarded.serviceKey]).status == 200)
    }

    /// Counts verifications and the work each took (the memory the hash checked asks for).
    final class CountingHasher: PasswordHashing, @unchecked Sendable {
        let inner = PasswordHasher(memoryKiB: 64, passes: 1)
        let checked = Locked([Int]())
        var minimumLength: Int { inner.minimumLength }
        func hash(_ password: String) throws(AuthError) -> String { try inner.hash(password) }
        func verify(_ password: String, against stored: String) -> Bool {
            checked.withLock { $0.append(Argon2id.parameters(of: stored)?.memoryKiB ?? 0) }
            return inner.verify(password, against: stored)
        }
    }

    @Test func anUnknownEmailCostsASignInTheSameWorkAsAWrongPassword() async throws {
        let hasher = CountingHasher()
        let fixture = try ServerFixture { $0.passwordHasher = hasher }
        _ = try await fixture.signUp("known@example.com")
        hasher.checked.withLock { $0.removeAll() }
        let wrong = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"known@example.com","password":"not-it-at-all"}"#)
        let unknown = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"nobody@example.com","password":"not-it-at-all"}"#)
        #expect(wrong.status == 400 && unknown.status == 400 && wrong.text == unknown.text, "one answer for both")
        #expect(hasher.checked.withLock { $0 } == [64, 64], "one full verification each")
    }
}

/// What a second attack run found past the first fixes.
@Suite(.timeLimit(.minutes(5))) struct HTTPDefenceFollowUpTests {
    func port(_ fixture: ServerFixture) throws -> UInt16 { try #require(UInt16(fixture.url.split(separator: ":").last ?? "")) }

    func exchange(_ fixture: ServerFixture, _ bytes: [UInt8]) throws -> (text: String, ended: Bool) {
        let socket = try RawSocket(port: try port(fixture))
        socket.send(bytes)
        let text = socket.readAll(timeout: 5)
        return (text, socket.ended)
    }

    @Test func rawNULBytesManyParametersAndUnknownCodingsAreAnswered() throws {
        let fixture = try ServerFixture()
        let nul = try exchange(fixture, Array("GET /auth/v1/settings".utf8) + [0] + Array("/../admin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(nul.text.hasPrefix("HTTP/1.1 400"), "\(nul.text)")
        for count in [500, 3000] {
            let query = Array(repeating: "a", count: count).joined(separator: "&")
            let many = try exchange(fixture, Array("GET /health?\(query) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(many.text.hasPrefix("HTTP/1.1 414"), "\(count) parameters: \(many.text.prefix(60))")
        }
        for coding in ["identity", "gzip, chunked", "xchunked"] {
            let answer = try exchange(fixture, Array("POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: \(coding)\r\n\r\nabc".utf8))
            #expect(answer.text.hasPrefix("HTTP/1.1 501") && answer.ended, "\(coding): \(answer.text.prefix(60))")
        }
        let spaced = try exchange(fixture, Array("POST /health HTTP/1.1\r\nHost: x\r\nContent-Length : 3\r\n\r\nabcGET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(spaced.text.hasPrefix("HTTP/1.1 400") && spaced.text.components(separatedBy: "HTTP/1.1 ").count == 2 && spaced.ended, "\(spaced.text)")
    }

    @Test func aBodySentAByteAtATimeIsCutOff() throws {
        let fixture = try ServerFixture { $0.limits.bodyTimeoutSeconds = 1 }
        let socket = try RawSocket(port: try port(fixture))
        socket.send("POST /auth/v1/signup HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx")
        // Bounded by a timeout well past the deadline: the server ends the stream first.
        #expect(socket.readAll(timeout: 10).isEmpty)
        #expect(socket.ended)
    }
}
