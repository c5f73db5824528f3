import Dispatch

/// Runs the due scheduled sends: every second, and at once when woken (a send just scheduled for
/// a time already near), one run at a time on a queue of its own. (Dispatch sources are
/// thread-safe; the timer is only cancelled.)
final class Scheduler: @unchecked Sendable {
    private let queue = DispatchQueue(label: "soar.push.schedules", qos: .utility)
    private let timer: any DispatchSourceTimer

    init(_ run: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .seconds(1), leeway: .milliseconds(100))
        timer.setEventHandler(handler: run)
        timer.resume()
        self.run = run
    }

    private let run: @Sendable () -> Void

    func wake() { queue.async(execute: run) }

    func stop() { timer.cancel() }
}
