import Foundation

/// `multipart/form-data` read as it streams in (what supabase clients upload with): each part's
/// headers, then its bytes in pieces as they arrive, never the whole body at once.
///
/// A pure state machine: ``feed(_:_:)`` takes the next bytes and reports what they hold.
public struct MultipartReader {
    public enum Event {
        /// A part begins: its headers, names lowercased.
        case part([String: String])
        /// Bytes of the current part.
        case bytes(UnsafeRawBufferPointer)
    }

    public struct Failure: Error, Equatable {
        public let reason: String
    }

    private enum State { case preamble, headers, body, afterDelimiter, done }

    /// `\r\n--boundary`: what ends a part's bytes.
    private let delimiter: [UInt8]
    private var state = State.preamble
    /// Bytes kept until it is known whether they begin a delimiter (or the headers end).
    private var held: [UInt8]
    private static let headerLimit = 16 << 10

    /// - Parameter contentType: the request's `Content-Type`, whose `boundary` it reads.
    public init?(contentType: String) {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data",
            let parameter = parts.dropFirst().first(where: { $0.lowercased().hasPrefix("boundary=") })
        else { return nil }
        var boundary = String(parameter.dropFirst("boundary=".count))
        if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 { boundary = String(boundary.dropFirst().dropLast()) }
        guard (1...70).contains(boundary.utf8.count) else { return nil }
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter may open the body without its line break.
        held = Array("\r\n".utf8)
    }

    /// Whether the closing delimiter was read.
    public var finished: Bool { state == .done }

    /// Reads `bytes`, calling `emit` for each event; after the closing delimiter the rest is ignored.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (Event) throws -> Void) throws {
        let input = held + bytes
        held = []
        var start = 0
        while start < input.count, state != .done {
            switch state {
            case .preamble, .body:
                guard let found = Self.find(delimiter, in: input, from: start) else {
                    // Keep what could be the start of a delimiter; the rest is the part's.
                    let keep = Self.partialSuffix(delimiter, of: input, from: start)
                    if state == .body, input.count - keep > start {
                        try input.withUnsafeBytes { try emit(.bytes(UnsafeRawBufferPointer(rebasing: $0[start..<(input.count - keep)]))) }
                    }
                    held = Array(input[(input.count - keep)...])
                    return
                }
                if state == .body, found > start {
                    try input.withUnsafeBytes { try emit(.bytes(UnsafeRawBufferPointer(rebasing: $0[start..<found]))) }
                }
                start = found + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                guard input.count - start >= 2 else {
                    held = Array(input[start...])
                    return
                }
                if input[start] == UInt8(ascii: "-"), input[start + 1] == UInt8(ascii: "-") {
                    state = .done
                    return
                }
                // Transport padding, then the line break before the headers.
                guard let lineEnd = Self.find(Array("\r\n".utf8), in: input, from: start) else {
                    guard input.count - start < 256 else { throw Failure(reason: "a multipart delimiter is not followed by a line break") }
                    held = Array(input[start...])
                    return
                }
                start = lineEnd + 2
                state = .headers
            case .headers:
                // A part with no headers at all: its blank line comes at once.
                if input.count - start >= 2, input[start] == 13, input[start + 1] == 10 {
                    try emit(.part([:]))
                    start += 2
                    state = .body
                    continue
                }
                guard let end = Self.find(Array("\r\n\r\n".utf8), in: input, from: start) else {
                    guard input.count - start <= Self.headerLimit else { throw Failure(reason: "a multipart part's headers are over 16 KB") }
                    held = Array(input[start...])
                    return
                }
                try emit(.part(Self.headers(input[start..<end])))
                start = end + 4
                state = .body
            case .done:
                return
            }
        }
    }

    private static func headers(_ bytes: ArraySlice<UInt8>) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// The first place `needle` starts in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count - start >= needle.count else { return nil }
        // memchr for the first byte, memcmp for the rest (Glibc's memmem is not exported to Swift).
        return haystack.withUnsafeBytes { raw -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = raw.baseAddress, let first = needle.first else { return nil }
                var at = start
                let last = raw.count - needle.count
                while at <= last {
                    guard let hit = memchr(base + at, Int32(first), last - at + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, pattern.baseAddress!, needle.count) == 0 { return index }
                    at = index + 1
                }
                return nil
            }
        }
    }

    /// How many of the last bytes could begin `needle` (they must wait for more input).
    static func partialSuffix(_ needle: [UInt8], of haystack: [UInt8], from start: Int) -> Int {
        let longest = min(needle.count - 1, haystack.count - start)
        var length = longest
        while length > 0 {
            if haystack[(haystack.count - length)...].elementsEqual(needle[..<length]) { return length }
            length -= 1
        }
        return 0
    }
}

extension MultipartReader {
    /// A part's field name and file name, from its `Content-Disposition`.
    public static func disposition(_ headers: [String: String]) -> (name: String?, fileName: String?) {
        guard let value = headers["content-disposition"] else { return (nil, nil) }
        var name: String?, fileName: String?
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            var text = pair[1]
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
            switch pair[0].lowercased() {
            case "name": name = text
            case "filename", "filename*": fileName = fileName ?? text
            default: break
            }
        }
        return (name, fileName)
    }
}
