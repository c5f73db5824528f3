import Foundation
import SoarCore

/// A program left running while a test talks to it (the `soar` server or emulator), read line by
/// line, and stopped with SIGTERM when the test is done or the value is released.
public final class BackgroundProcess: @unchecked Sendable {
    private let child: ChildProcess
    private let arrived = DispatchSemaphore(value: 0)
    /// Standard output not read yet, and standard error so far.
    private let buffer = Locked(Data())
    private let errors = Locked(Data())

    /// - Parameter environment: variables added to (or replacing) this process's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(executable, arguments, environment: environment)
        let arrived = self.arrived
        ChildProcess.drain(child.output, chunk: { [weak self] data in
            guard let self else { return }
            buffer.withLock { $0.append(data) }
            arrived.signal()
        }, done: { arrived.signal() })
        ChildProcess.drain(child.errors, chunk: { [weak self] data in
            guard let self else { return }
            errors.withLock { $0.append(data) }
        }, done: {})
        child.finishInput(nil)
    }

    public var pid: Int32 { child.pid }

    /// The next line of standard output, or nil when none comes before the deadline.
    public func readLine(timeout: TimeInterval = 10) -> String? {
        let deadline = Date() + timeout
        while true {
            let line: String? = buffer.withLock { buffer in
                guard let newline = buffer.firstIndex(of: 10) else { return nil }
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            if let line { return line }
            guard child.isRunning || arrived.wait(timeout: .now()) == .success else { return nil }
            if arrived.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut { return nil }
        }
    }

    /// What the program wrote to standard error so far.
    public var standardError: String {
        errors.withLock { String(decoding: $0, as: UTF8.self) }
    }

    /// Sends SIGTERM and waits (at most 10 s, then SIGKILL); returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        child.signal(SIGTERM)
        if let status = child.wait(timeout: 10) { return status }
        child.signal(SIGKILL)
        return child.wait(timeout: 10) ?? -9
    }

    deinit { stop() }
}

/// The `soar` executable built next to the running tests.
public enum SoarBinary {
    public static var path: String {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("soar").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/soar").path
    }
}
