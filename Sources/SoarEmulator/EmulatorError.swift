/// Why the emulator could not start or was misconfigured.
public struct EmulatorError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
