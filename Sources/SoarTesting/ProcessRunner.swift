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
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try? inPipe.fileHandleForWriting.close()
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, keyPath) in [(out, \Collected.out), (err, \Collected.err)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(keyPath, data)
                group.leave()
            }
        }
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        var status: Int32
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            status = -9
        } else {
            status = process.terminationStatus
        }
        group.wait()
        return ProcessResult(status: status, stdout: collected.text(\.out), stderr: collected.text(\.err))
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
    func set(_ keyPath: ReferenceWritableKeyPath<Collected, Data>, _ data: Data) {
        lock.lock()
        self[keyPath: keyPath] = data
        lock.unlock()
    }
    func text(_ keyPath: KeyPath<Collected, Data>) -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: self[keyPath: keyPath], as: UTF8.self)
    }
}
