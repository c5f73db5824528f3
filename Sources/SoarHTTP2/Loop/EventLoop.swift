import CLinux
import Foundation
import SoarCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What epoll reported for one socket.
public struct SocketEvents: Sendable, Equatable {
    public var readable: Bool
    public var writable: Bool
    /// An error or hang-up: the next read or write says which.
    public var failed: Bool
}

/// The work an ``EventLoop`` drives: the HTTP/2 client's connection pool or the emulator's server.
///
/// Every method runs on the loop's thread, which is the only thread that touches the driver's
/// sockets and sessions.
public protocol EventLoopDriver: AnyObject {
    /// A watched socket is ready.
    func socketReady(_ fd: Int32, _ events: SocketEvents, now: UInt64)
    /// Every turn ends here, after sockets and tasks: timers, scheduling, writing what is queued.
    func turnEnded(now: UInt64)
    /// When, on the monotonic millisecond clock, the driver next needs a turn without any socket
    /// being ready; nil when only a socket or a task can give it work.
    func nextWakeup(now: UInt64) -> UInt64?
    /// The loop is ending: close what is open and fail what waits.
    func loopStopping(now: UInt64)
}

/// One thread waiting on epoll for sockets, timers and tasks from other threads, feeding a driver.
///
/// Tasks handed in with ``execute(_:)`` always run: on the loop, or, once the loop has stopped,
/// never accepted (the call says so), so no completion is ever left waiting.
public final class EventLoop: @unchecked Sendable {
    private struct Tasks {
        var items: [@Sendable () -> Void] = []
        var open = true
        var wakePending = false
    }

    private let epoll: Int32
    private let wake: Int32
    private let tasks = Locked(Tasks())
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private let loopThread = Atomic<UInt>(0)
    /// What epoll was last told about each socket: whether EPOLLOUT is watched. Loop thread only.
    private var watchingWrites: [Int32: Bool] = [:]
    /// The monotonic clock in milliseconds, read once as each turn starts: the time for
    /// everything the turn does. Loop thread only.
    public private(set) var now = monotonicMilliseconds()

    /// Creates the loop and starts its thread, which keeps `driver` alive until the loop stops.
    ///
    /// - Throws: ``SystemError`` when epoll or the wake-up descriptor cannot be made.
    public init(name: String, driver: some EventLoopDriver) throws(SystemError) {
        epoll = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wake = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            Glibc.close(epoll)
            throw error
        }
        do {
            try control(EPOLL_CTL_ADD, wake, writable: false)
        } catch {
            Glibc.close(wake)
            Glibc.close(epoll)
            throw error
        }
        // The driver is used on the loop's thread only, from here on; the thread gets a plain
        // closure, so it captures no generic type.
        let runLoop = LoopThreadOnly<() -> Void>({ [unowned self] in run(driver) })
        let thread = Thread { [self] in
            blockBrokenPipeSignal()
            loopThread.store(UInt(pthread_self()), ordering: .releasing)
            runLoop.value()
        }
        thread.name = name
        thread.start()
    }

    deinit {
        Glibc.close(wake)
        Glibc.close(epoll)
    }

    /// Whether the caller is on the loop's thread.
    public var inLoop: Bool { UInt(pthread_self()) == loopThread.load(ordering: .acquiring) }

    /// Runs `task` on the loop's thread, soon.
    ///
    /// - Returns: false when the loop has stopped; the task will not run and the caller must
    ///   finish what it stands for itself.
    @discardableResult
    public func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        let needsWake: Bool? = tasks.withLock { tasks in
            guard tasks.open else { return nil }
            tasks.items.append(task)
            defer { tasks.wakePending = true }
            return !tasks.wakePending
        }
        guard let needsWake else { return false }
        // On the loop's own thread the loop sees the task before it waits again (see `run`).
        if needsWake && !inLoop { signal() }
        return true
    }

    /// Asks the loop to stop: the driver closes everything, tasks still queued run, later ones are
    /// refused. Returns once the loop has ended, or at once when called from the loop itself (the
    /// loop then ends after the current turn).
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else {
            if !inLoop { finished.wait(); finished.signal() }
            return
        }
        guard !inLoop else { return }
        signal()
        finished.wait()
        finished.signal()  // let any other caller of stop() through too
    }

    // MARK: - Sockets (loop thread only)

    /// Starts watching a socket: for reading always, for writing when asked.
    public func watch(_ fd: Int32, writable: Bool) throws(SystemError) {
        try control(EPOLL_CTL_ADD, fd, writable: writable)
        watchingWrites[fd] = writable
    }

    /// Watches a socket for writability, or stops; tells epoll only when that changes.
    public func setWritable(_ fd: Int32, _ writable: Bool) throws(SystemError) {
        guard let current = watchingWrites[fd], current != writable else { return }
        try control(EPOLL_CTL_MOD, fd, writable: writable)
        watchingWrites[fd] = writable
    }

    /// Forgets a socket the caller is about to close; closing it takes it out of the epoll set.
    public func forget(_ fd: Int32) {
        watchingWrites[fd] = nil
    }

    /// Stops watching a socket that stays open (``watch(_:writable:)`` takes it back).
    public func unwatch(_ fd: Int32) throws(SystemError) {
        watchingWrites[fd] = nil
        try systemCall("epoll_ctl") { epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil) }
    }

    private func control(_ operation: Int32, _ fd: Int32, writable: Bool) throws(SystemError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = fd
        try systemCall("epoll_ctl") { epoll_ctl(epoll, operation, fd, &event) }
    }

    // MARK: - The loop

    private func signal() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop wakes anyway.
        _ = try? systemCall("write eventfd") { Glibc.write(wake, &one, 8) }
    }

    private func run(_ driver: some EventLoopDriver) {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopping.load(ordering: .acquiring) {
            var timeout: Int32 = -1
            if tasks.withLock({ !$0.items.isEmpty }) {
                timeout = 0
            } else if let at = driver.nextWakeup(now: now) {
                timeout = at <= now ? 0 : Int32(clamping: at - now)
            }
            let count = epoll_wait(epoll, &events, Int32(events.count), timeout)
            if count < 0 && errno != EINTR { preconditionFailure("epoll_wait: \(SystemError("epoll_wait"))") }
            now = monotonicMilliseconds()
            for index in 0..<max(0, Int(count)) {
                let fd = events[index].data.fd
                if fd == wake {
                    var value: UInt64 = 0
                    _ = try? systemCall("read eventfd") { Glibc.read(wake, &value, 8) }  // EAGAIN: already drained
                    continue
                }
                let flags = events[index].events
                driver.socketReady(fd, SocketEvents(
                    readable: flags & EPOLLIN.rawValue != 0, writable: flags & EPOLLOUT.rawValue != 0,
                    failed: flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0), now: now)
            }
            let due = tasks.withLock { tasks in
                defer {
                    tasks.items.removeAll(keepingCapacity: true)
                    tasks.wakePending = false
                }
                return tasks.items
            }
            for task in due { task() }
            driver.turnEnded(now: now)
        }
        driver.loopStopping(now: now)
        let left = tasks.withLock { tasks in
            tasks.open = false
            defer { tasks.items.removeAll() }
            return tasks.items
        }
        for task in left { task() }
        // The thread ends here, and its id may be given to a new thread, which is not the loop.
        loopThread.store(0, ordering: .releasing)
        finished.signal()
    }
}

/// Carries a value that only the loop's thread will use across to that thread.
private struct LoopThreadOnly<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Keeps a write to a socket the peer has closed from ending the process.
///
/// Such a write raises SIGPIPE, whose default action kills the process, and OpenSSL writes with
/// plain `write`, which cannot ask for MSG_NOSIGNAL. An event loop calls this first on its own
/// thread: SIGPIPE is sent to the writing thread, and blocked there it is never delivered, so the
/// write just fails with EPIPE. Other threads and the process's handlers are left as they were.
public func blockBrokenPipeSignal() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGPIPE)
    // Fails only for an invalid `how`, which this is not.
    let result = pthread_sigmask(SIG_BLOCK, &signals, nil)
    precondition(result == 0, "pthread_sigmask: \(result)")
}

/// Milliseconds on the monotonic clock, for event loops' timers.
public func monotonicMilliseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)  // cannot fail for CLOCK_MONOTONIC with a valid pointer
    return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
}
