import SoarStore

/// Commits a batch of outcomes, trying again while the store fails (a database restarting): an
/// outcome dropped here leaves its job pending, and it would be sent a second time.
struct OutcomeRecorder: Sendable {
    /// The pauses between tries; after the last, the outcomes are left to the next pass.
    static let pauses: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(500)] + Array(repeating: .seconds(2), count: 150)

    /// Commits one batch (the store's `finishJobs`).
    let commit: @Sendable ([PushJobResult]) async throws(StoreError) -> Void
    let metrics: PushMetrics
    var pauses = Self.pauses
    var sleep: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }

    /// - Returns: whether the outcomes were committed.
    @discardableResult
    func record(_ results: [PushJobResult]) async -> Bool {
        guard !results.isEmpty else { return true }
        var pauses = pauses[...]
        while true {
            do {
                try await commit(results)
                return true
            } catch {
                metrics.recordingFailed()
                guard let pause = pauses.popFirst(), !Task.isCancelled else { return false }
                await sleep(pause)
            }
        }
    }
}
