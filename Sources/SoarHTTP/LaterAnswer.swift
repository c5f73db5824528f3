import CMicroHTTPD
import Foundation
import SoarCore

/// An answer a handler gives after it has returned, from any thread. Its connection is suspended
/// meanwhile (libmicrohttpd's suspend and resume), so the thread goes on serving the others.
///
/// `send` only hands over: its closure builds the response on libmicrohttpd's thread once the
/// connection is resumed. The first `send` counts; later ones are ignored. When the server stops,
/// every answer still waiting is sent as 503 first, because libmicrohttpd aborts the process if
/// it is stopped with a connection suspended.
public final class LaterAnswer: @unchecked Sendable {
    private let connection: OpaquePointer
    private let waiting: WaitingAnswers
    /// The answer once given, and whether the connection is suspended waiting for it.
    private let state = Locked<(build: (@Sendable () -> HTTPResponse)?, suspended: Bool)>((nil, false))
    /// The answer a resumed connection sends: written once, under the lock, before the resume,
    /// and read after it on libmicrohttpd's thread (its resume orders the two), so that thread
    /// does not wait for the lock the answering thread still holds while it resumes.
    nonisolated(unsafe) private var resumedWith: (@Sendable () -> HTTPResponse)?

    init(connection: OpaquePointer, waiting: WaitingAnswers) {
        self.connection = connection
        self.waiting = waiting
    }

    /// Gives the answer, resuming the connection when it is suspended waiting for it.
    public func send(_ build: @escaping @Sendable () -> HTTPResponse) {
        state.withLock { state in
            guard state.build == nil else { return }
            state.build = build
            if state.suspended {
                resumedWith = build
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
        state.withLock { state in
            if let build = state.build { return build }
            guard waiting.add(self) else {
                state.build = { HTTPServer.stopping }
                return state.build
            }
            MHD_suspend_connection(connection)
            state.suspended = true
            return nil
        }
    }

    /// On libmicrohttpd's thread after the resume: the answer sent.
    func sent() -> (@Sendable () -> HTTPResponse)? { resumedWith }
}

/// The answers whose connections are suspended, so that stopping can answer them first.
final class WaitingAnswers: Sendable {
    private let state = Locked<(answers: [ObjectIdentifier: LaterAnswer], closed: Bool)>(([:], false))

    /// False once the server is stopping: the connection must not be suspended then.
    func add(_ answer: LaterAnswer) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.answers[ObjectIdentifier(answer)] = answer
            return true
        }
    }

    func remove(_ answer: LaterAnswer) { _ = state.withLock { $0.answers.removeValue(forKey: ObjectIdentifier(answer)) } }

    /// Answers 503 to every connection still waiting, and suspends none from now on.
    func close() {
        let left = state.withLock { state in
            state.closed = true
            return Array(state.answers.values)
        }
        for answer in left { answer.send { HTTPServer.stopping } }
    }
}
