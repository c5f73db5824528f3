#if canImport(Glibc)
    import Glibc
#endif

/// Milliseconds on the monotonic clock, for event loops' timers.
public func monotonicMilliseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
}
