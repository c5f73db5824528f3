#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed, with `errno` and the kernel's words for it.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, such as `epoll_ctl`.
    public let call: String
    public let code: Int32

    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// The kernel's explanation alone, for messages that name the operation themselves.
    public var reason: String { String(cString: strerror(code)) }

    public var description: String { "\(call): \(reason)" }

    /// Whether the call would have blocked on a non-blocking descriptor.
    public var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}

/// Runs a system call that returns -1 with `errno` on failure, again after EINTR.
///
/// - Returns: the call's non-negative result.
/// - Throws: ``SystemError`` naming the call.
@discardableResult
func systemCall<Result: BinaryInteger>(_ name: String, _ call: () -> Result) throws(SystemError) -> Result {
    while true {
        let result = call()
        if result >= 0 { return result }
        if errno != EINTR { throw SystemError(name) }
    }
}
