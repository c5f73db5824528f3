import Foundation
import SoarCore
import SoarHTTP
import SoarStorage

/// An object's bytes as HTTP sends them: from its file (never read into memory), with `Range`
/// (206, 416), `ETag` and `If-None-Match` / `If-Modified-Since` (304), `Last-Modified`,
/// `Cache-Control` (or a signed URL's `Expires`) and `Content-Disposition` for `?download=`.
struct Download {
    let storage: StorageService
    let object: StoredObject
    let request: HTTPRequest
    /// A signed URL's end (Unix time): sent as `Expires` instead of `Cache-Control`.
    let expires: Int?
    /// A render of the object instead of its bytes (`/render/image/...`).
    var transform: ImageTransform? = nil

    func response() throws(StorageError) -> HTTPResponse {
        var headers: [(String, String)] = [
            ("etag", object.eTag), ("last-modified", HTTPDate.text(object.lastModified)), ("accept-ranges", "bytes"),
            ("x-robots-tag", "none"),
            // What a browser opening an object on the API's origin may do: nothing but show it.
            ("x-content-type-options", "nosniff"), ("content-security-policy", "default-src 'none'; sandbox"),
        ]
        if let expires {
            headers.append(("expires", HTTPDate.text(Date(timeIntervalSince1970: TimeInterval(expires)))))
        } else {
            headers.append(("cache-control", object.cacheControl))
        }
        if notModified {
            return HTTPResponse(status: 304, headers: headers)
        }
        let (descriptor, size, stored) = if let transform { try storage.render(object, transform) } else { try storage.open(object) }
        // HTML is served as text: an object must not run script on this origin.
        let type = stored.lowercased().contains("text/html") ? "text/plain" : stored
        headers.append(("content-type", type))
        if let disposition { headers.append(("content-disposition", disposition)) }
        // A range is read only when it parses and, with `If-Range`, the object is still that one.
        let stillTheSame = request.headers["if-range"].map { Self.tag($0) == Self.tag(object.eTag) } ?? true
        guard let header = request.headers["range"], stillTheSame, let asked = Self.range(header, size: size) else {
            var response = HTTPResponse(status: 200, headers: headers)
            response.file = FileBody(descriptor: descriptor, offset: 0, length: size)
            return response
        }
        guard let range = asked else {
            close(descriptor)
            throw .invalidRange(size: size)
        }
        headers.append(("content-range", "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"))
        var response = HTTPResponse(status: 206, headers: headers)
        response.file = FileBody(descriptor: descriptor, offset: range.lowerBound, length: range.upperBound - range.lowerBound + 1)
        return response
    }

    private var notModified: Bool {
        if let tags = request.headers["if-none-match"] {
            // Weak comparison, as If-None-Match asks: `W/"x"` matches `"x"`.
            return tags.split(separator: ",").contains { Self.tag(String($0)) == Self.tag(object.eTag) || $0.trimmingCharacters(in: .whitespaces) == "*" }
        }
        if let since = request.headers["if-modified-since"].flatMap(HTTPDate.parse) {
            return Int(object.lastModified.timeIntervalSince1970) <= Int(since.timeIntervalSince1970)
        }
        return false
    }

    /// `?download` (attachment) or `?download=name` (attachment with that file name).
    private var disposition: String? {
        guard let name = request.query.first(where: { $0.name == "download" })?.value else { return nil }
        guard !name.isEmpty else { return "attachment;" }
        let encoded = name.addingPercentEncoding(withAllowedCharacters: Self.componentCharacters) ?? ""
        return "attachment; filename=\(encoded); filename*=UTF-8''\(encoded)"
    }

    /// What JavaScript's `encodeURIComponent` leaves as is.
    private static let componentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")

    /// An entity tag without its weak mark, for comparing.
    static func tag(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
    }

    /// A `Range` header: nil when it does not parse (then it is ignored, as HTTP says); `.some(nil)`
    /// when it parses but cannot be served (several ranges, a start past the end, an empty
    /// object: 416); else one byte range of `bytes=a-b`, `bytes=a-` or `bytes=-n`, its end clamped.
    static func range(_ header: String, size: Int64) -> ClosedRange<Int64>?? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { return nil }
        let specs = text.dropFirst(6).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var parsed: [(first: Int64?, last: Int64?)] = []
        for spec in specs {
            guard let dash = spec.firstIndex(of: "-") else { return nil }
            let first = spec[..<dash], last = spec[spec.index(after: dash)...]
            guard first.isEmpty || Int64(first) != nil, last.isEmpty || Int64(last) != nil, !(first.isEmpty && last.isEmpty) else { return nil }
            parsed.append((Int64(first), Int64(last)))
        }
        guard parsed.count == 1, size > 0 else { return .some(nil) }
        let (first, last) = parsed[0]
        guard let start = first else {
            guard let count = last, count > 0 else { return .some(nil) }
            return max(0, size - count)...(size - 1)
        }
        guard start < size else { return .some(nil) }
        guard let end = last else { return start...(size - 1) }
        guard end >= start else { return nil }
        return start...min(end, size - 1)
    }
}

/// HTTP's date format (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    static func text(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (Int32(year - 1900), Int32(month), Int32(day))
        (fields.tm_hour, fields.tm_min, fields.tm_sec) = (Int32(clock[0]), Int32(clock[1]), Int32(clock[2]))
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)))
    }
}
