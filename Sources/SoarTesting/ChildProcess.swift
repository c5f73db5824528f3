import CLinux
import Foundation
import SoarCore

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with posix_spawn, its three standard streams as pipes, reaped by a thread of
/// its own. Foundation's Process on Linux can miss the exit of a child that ends quickly and then
/// spin in `waitUntilExit` forever; this never waits without a deadline it can enforce.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// The parent's ends: write to `input`, read `output` and `errors`.
    let input: Int32
    let output: Int32
    let errors: Int32
    private let exitStatus = Locked<Int32?>(nil)
    private let inputOpen = Locked(true)
    private let exited = DispatchSemaphore(value: 0)

    /// - Parameter environment: variables added to (or replacing) this process's own.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        var fds: [[Int32]] = []
        for _ in 0..<3 {
            var pair: [Int32] = [0, 0]
            guard pipe2(&pair, O_CLOEXEC) == 0 else { throw FixtureError("pipe2 failed: errno \(errno)") }
            fds.append(pair)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0][0], 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1][1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[2][1], 2)
        // The child starts with no signal blocked: a test runner's blocked SIGTERM would otherwise
        // be inherited, and a peer that handles SIGTERM would never see it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var spawned: pid_t = 0
        let result = posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
        let pid = spawned
        close(fds[0][0])
        close(fds[1][1])
        close(fds[2][1])
        guard result == 0 else {
            [fds[0][1], fds[1][0], fds[2][0]].forEach { close($0) }
            throw FixtureError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        input = fds[0][1]
        output = fds[1][0]
        errors = fds[2][0]
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &status, 0) } while reaped == -1 && errno == EINTR
            // Exited: its code; killed: minus the signal, as a shell would tell them apart.
            let code: Int32 = reaped == -1 ? -1 : (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
            exitStatus.withLock { $0 = code }
            exited.signal()
        }
    }

    deinit { closeInput() }

    var isRunning: Bool { exitStatus.withLock { $0 == nil } }

    /// The exit status, waiting at most `timeout`; nil when it is still running then.
    func wait(timeout: TimeInterval) -> Int32? {
        if let status = exitStatus.withLock({ $0 }) { return status }
        guard exited.wait(timeout: .now() + timeout) == .success else { return nil }
        exited.signal()
        return exitStatus.withLock { $0 }
    }

    func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    /// Writes all of `data` to the child's standard input, then closes it.
    func finishInput(_ data: Data?) {
        if let data {
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(input, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
        closeInput()
    }

    private func closeInput() {
        if inputOpen.withLock({ open in defer { open = false }; return open }) { close(input) }
    }

    /// Reads `fd` to its end on a thread of its own, handing each chunk to `chunk`, then closes it
    /// and calls `done`.
    static func drain(_ fd: Int32, chunk: @escaping @Sendable (Data) -> Void, done: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 { chunk(Data(buffer[0..<count])); continue }
                if count == -1 && errno == EINTR { continue }
                break
            }
            close(fd)
            done()
        }
    }
}
