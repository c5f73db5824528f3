import Foundation
import SoarCore

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
    public static func run(
        _ program: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> ProcessResult {
        let child = program.contains("/") ? try ChildProcess(program, arguments, environment: environment)
            : try ChildProcess("/usr/bin/env", [program] + arguments, environment: environment)
        let collected = Collected()
        let group = DispatchGroup()
        for (fd, keyPath) in [(child.output, \(out: Data, err: Data).out), (child.errors, \(out: Data, err: Data).err)] {
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

/// A child's standard output and error, as they arrive.
private final class Collected: Sendable {
    private let streams = Locked((out: Data(), err: Data()))
    func append(_ keyPath: WritableKeyPath<(out: Data, err: Data), Data> & Sendable, _ data: Data) {
        streams.withLock { $0[keyPath: keyPath].append(data) }
    }
    func text(_ keyPath: KeyPath<(out: Data, err: Data), Data> & Sendable) -> String {
        streams.withLock { String(decoding: $0[keyPath: keyPath], as: UTF8.self) }
    }
}
