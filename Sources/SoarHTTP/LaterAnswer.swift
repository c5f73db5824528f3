import CMicroHTTPD
import Foundation

/// An answer a handler gives after it has returned, from any thread. Its connection is suspended
/// meanwhile (libmicrohttpd's suspend and resume), so the thread goes on serving the others.
///
/// `send` only hands over: its closure builds the response on libmicrohttpd's thread once the
/// connection is resumed. The first `send` counts; later ones are ignored. When the server stops,
/// every answer still waiting is sent as 503 first, because libmicrohttpd aborts the process if
/// it is stopped with a connection suspended.
public final class LaterAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: OpaquePointer
    private let waiting: WaitingAnswers
    private var build: (@Sendable () -> HTTPResponse)?
    private var suspended = false

    init(connection: OpaquePointer, waiting: WaitingAnswers) {
        self.connection = connection
        self.waiting = waiting
    }

    /// Gives the answer, resuming the connection when it is suspended waiting for it.
    public func send(_ build: @escaping @Sendable () -> HTTPResponse) {
        lock.withLock {
            guard self.build == nil else { return }
            self.build = build
            if suspended {
                // Resumed before it leaves `waiting`: stopping either finds it there (and waits
                // for this lock) or finds it marked for resume, which libmicrohttpd accepts.
                MHD_resume_connection(connection)
                waiting.remove(self)
            }
        }
    }

    /// On libmicrohttpd's thread, once the handler returned without an answer: the answer when it
    /// came already, else nil with the connection suspended (503 when the server is stopping).
    func answerOrSuspend() -> (@Sendable () -> HTTPResponse)? {
        lock.withLock {
            if let build { return build }
            guard waiting.add(self) else {
                build = { HTTPServer.stopping }
                return build
            }
            MHD_suspend_connection(connection)
            suspended = true
            return nil
        }
    }

    /// On libmicrohttpd's thread after the resume: the answer sent.
    func sent() -> (@Sendable () -> HTTPResponse)? { lock.withLock { build } }
}

/// The answers whose connections are suspended, so that stopping can answer them first.
final class WaitingAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [ObjectIdentifier: LaterAnswer] = [:]
    private var closed = false

    /// False once the server is stopping: the connection must not be suspended then.
    func add(_ answer: LaterAnswer) -> Bool {
        lock.withLock {
            guard !closed else { return false }
            answers[ObjectIdentifier(answer)] = answer
            return true
        }
    }

    func remove(_ answer: LaterAnswer) { _ = lock.withLock { answers.removeValue(forKey: ObjectIdentifier(answer)) } }

    /// Answers 503 to every connection still waiting, and suspends none from now on.
    func close() {
        let left = lock.withLock {
            closed = true
            return Array(answers.values)
        }
        for answer in left { answer.send { HTTPServer.stopping } }
    }
}
