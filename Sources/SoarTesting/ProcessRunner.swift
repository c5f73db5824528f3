import Foundation

/// Runs a program to completion and keeps what it printed: for tests that drive real peers
/// (`curl`, `h2load`, `python3`, the `soar` binary).
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

public enum ProcessRunner {
    /// Runs `program` (a path, or a name looked up in PATH) with a deadline; a process still
    /// running at the deadline is killed and reported with status -9.
    public static func run(_ program: String, _ arguments: [String], input: Data? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let child = program.contains("/") ? try ChildProcess(program, arguments) : try ChildProcess("/usr/bin/env", [program] + arguments)
        let collected = Collected()
        let group = DispatchGroup()
        for (fd, keyPath) in [(child.output, \Collected.out), (child.errors, \Collected.err)] {
            group.enter()
            ChildProcess.drain(fd, chunk: { collected.append(keyPath, $0) }, done: { group.leave() })
        }
        child.finishInput(input)
        var status = child.wait(timeout: timeout)
        if status == nil {
            child.signal(SIGKILL)
            status = child.wait(timeout: 10) ?? -9
        }
        // A grandchild that kept the pipes open must not hold the test up.
        _ = group.wait(timeout: .now() + 10)
        return ProcessResult(status: status ?? -9, stdout: collected.text(\.out), stderr: collected.text(\.err))
    }

    /// Whether a program is on PATH.
    public static func exists(_ program: String) -> Bool {
        (try? run("/bin/sh", ["-c", "command -v \(program)"]).status) == 0
    }
}

private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    var out = Data()
    var err = Data()
    func append(_ keyPath: ReferenceWritableKeyPath<Collected, Data>, _ data: Data) {
        lock.lock()
        self[keyPath: keyPath].append(data)
        lock.unlock()
    }
    func text(_ keyPath: KeyPath<Collected, Data>) -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: self[keyPath: keyPath], as: UTF8.self)
    }
}
