import Foundation

/// Waits, up to `timeout`, for another thread's bookkeeping to catch up with what a test has
/// already seen (a server counts an answer as sent just after the client may have read it).
///
/// - Returns: whether `condition` held before the time ran out.
public func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}

/// ``eventually(within:_:)`` for async tests: yields between looks instead of blocking the thread,
/// so work on the caller's actor (the main actor's tasks) goes on meanwhile.
public func waitUntil(
    within timeout: Duration = .seconds(5), isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !(await condition()) {
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
