/// How often and how patiently retryable failures (429, 500, 503, lost connections) are retried:
/// exponential back-off with full jitter, a bounded number of times.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt; 0 turns retrying off.
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxRetries: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(10)) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    public static let none = RetryPolicy(maxRetries: 0)

    /// The wait before retry number `retry` (1-based): uniform in 0...min(maxDelay, base·2^(retry-1)).
    ///
    /// - Parameter random: a number in 0...1, injected so tests are deterministic.
    public func delay(beforeRetry retry: Int, random: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }

    /// Whether a failure after `attempts` tries gets another.
    public func shouldRetry(_ failure: APNsFailure, attempts: Int) -> Bool {
        failure.classification == .retryable && attempts <= maxRetries
    }
}
