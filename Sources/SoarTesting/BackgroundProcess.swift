import Foundation

/// A program left running while a test talks to it (the `soar` server or emulator), read line by
/// line, and stopped with SIGTERM when the test is done or the value is released.
public final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var buffer = Data()
    private var errors = Data()

    /// - Parameter environment: variables added to (or replacing) this process's own.
    public init(_ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            self.buffer.append(data)
            self.lock.unlock()
            self.arrived.signal()
            if data.isEmpty { handle.readabilityHandler = nil }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            guard let self else { return }
            self.lock.lock()
            self.errors.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    /// The next line of standard output, or nil when none comes before the deadline.
    public func readLine(timeout: TimeInterval = 10) -> String? {
        let deadline = Date() + timeout
        while true {
            lock.lock()
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                lock.unlock()
                return line
            }
            lock.unlock()
            guard process.isRunning || arrived.wait(timeout: .now()) == .success else { return nil }
            if arrived.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut { return nil }
        }
    }

    /// What the program wrote to standard error so far.
    public var standardError: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errors, as: UTF8.self)
    }

    /// Sends SIGTERM and waits (at most 10 s, then SIGKILL); returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        process.terminate()
        let deadline = Date() + 10
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
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
