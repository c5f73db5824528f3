import CMicroHTTPD
import Foundation
import SoarCore
import Synchronization

/// One request as it arrives, kept in libmicrohttpd's per-request slot from its request line on.
final class RequestBuffer {
    /// What the request line showed that libmicrohttpd would hide once it decoded the target.
    var refusal: RequestChecks.Refusal?
    /// Set once its headers arrived (the access handler's first call).
    var started = false
    var body = Data()
    var tooLarge = false
    /// Where the body streams to, when its destination said so.
    var sink: (any RequestBodySink)?
    /// The answer a refused body gets once it is in (refused at its headers, or by its sink).
    var sinkAnswer: HTTPResponse?
    /// Bytes of a refused body read and dropped so far.
    var dropped = 0
    static let dropLimit = 64 << 20
    /// The connection closes after the answer (a request framed two ways).
    var closeAfter = false
    /// The request's headers as they came (repeated names kept), read once when they arrived.
    var headers: [(String, String)] = []
    /// Set while the connection is suspended waiting for the handler's later answer.
    var later: LaterAnswer?
    /// Answered with a 101: the connection is no longer an HTTP one.
    var upgraded = false
}

/// libmicrohttpd's request-line callback, before it decodes the target: the request's slot.
///
/// A `%00` would reach the handler as the end of the path or value (`/rest/v1/todos%00.css` as
/// `/rest/v1/todos`), and libmicrohttpd gives up on a request whose query parameters do not fit
/// in the connection's memory without answering: both are answered here instead (400 and 414),
/// and the query is cut off so that libmicrohttpd has none to parse.
func httpRequestLine(context: UnsafeMutableRawPointer?, target: UnsafePointer<CChar>?, connection: OpaquePointer?) -> UnsafeMutableRawPointer? {
    let buffer = RequestBuffer()
    if let context, let target {
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let length = strlen(target)
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(target).assumingMemoryBound(to: UInt8.self), count: length)
        buffer.refusal = RequestChecks.refusal(target: bytes, limits: server.limits)
        // libmicrohttpd ends the target where the request line's version begins; anything else
        // after the first NUL means a NUL byte inside the target, which would cut it short.
        let next = UnsafeRawPointer(target + length + 1).assumingMemoryBound(to: UInt8.self)
        if buffer.refusal == nil, !RequestChecks.startsWithVersion(next) {
            buffer.refusal = RequestChecks.Refusal(status: 400, reason: "the request target holds a NUL character")
        }
        // A refused request's query is never parsed: libmicrohttpd found the `?` before this
        // call, and parses what follows it; ending the text right there leaves it nothing.
        if buffer.refusal != nil, let question = bytes.firstIndex(of: UInt8(ascii: "?")) {
            UnsafeMutablePointer(mutating: target)[question + 1] = 0
        }
        // Its headers may not fit beside it: a connection whose handler is never called is cut
        // at the next sweep instead of at the header deadline.
        if buffer.refusal?.status == 414, let connection { server.deadlines.expire(connection) }
    }
    return Unmanaged.passRetained(buffer).toOpaque()
}

/// libmicrohttpd's own messages, formatted by the shim.
func httpLibraryMessage(context: UnsafeMutableRawPointer?, message: UnsafePointer<CChar>?) {
    guard let context, let message else { return }
    let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().notify(.library(text))
}

/// libmicrohttpd's connection callback: a connection opened (it waits for a request's headers
/// from now on) or closed.
func httpConnectionChanged(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    change: MHD_ConnectionNotificationCode
) {
    guard let context, let connection else { return }
    let deadlines = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().deadlines
    if change == .CONNECTION_NOTIFY_STARTED {
        deadlines.waitForHeaders(connection, socket: CMicroHTTPD_socket(connection))
    } else {
        deadlines.closed(connection)
    }
}

/// libmicrohttpd's access handler: called once to start a request, once per body chunk, then once
/// to answer (and once more after a resume, when the handler answers later). Plain functions, not
/// closures: a closure would inherit the actor isolation of where it was written, which C's threads
/// calling it do not have.
func httpAccessHandler(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let slot, let uploadSize, let pointer = slot.pointee else { return .NO }
    let buffer = Unmanaged<RequestBuffer>.fromOpaque(pointer).takeUnretainedValue()
    if !buffer.started {
        // The headers are in: answer now what the request line or its framing already decided.
        buffer.started = true
        let deadlines = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().deadlines
        let headers = allValues(connection, .HEADER_KIND)
        buffer.headers = headers
        let framing = RequestChecks.framing(headers: headers)
        let length = headers.first { $0.0.equalsIgnoringASCIICase("content-length") }.flatMap { Int($0.1.trimmingSpaces) } ?? 0
        if length > 0 || headers.contains(where: { $0.0.equalsIgnoringASCIICase("transfer-encoding") }) {
            deadlines.waitForBody(connection, socket: CMicroHTTPD_socket(connection))
        } else {
            deadlines.arrived(connection)
        }
        if let refusal = buffer.refusal ?? framing.refusal {
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            server.notify(.refused(status: refusal.status, reason: refusal.reason, client: clientAddress(connection)))
            return queue(refusal.response, on: connection, closing: true)
        }
        buffer.closeAfter = framing.closeAfter
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        switch server.bodyDestination(head(method, url, headers, connection)) {
        case .memory: break
        case .stream(let sink): buffer.sink = sink
        case .refuse(let response):
            // A client waiting for `100 Continue` sends no body: answer now.
            if headers.contains(where: { $0.0.equalsIgnoringASCIICase("expect") && $0.1.lowercased().contains("100-continue") }) {
                return queue(response, on: connection, closing: true)
            }
            buffer.sinkAnswer = response
        }
        return .YES
    }
    if uploadSize.pointee > 0, buffer.sinkAnswer != nil {
        // Refused: the rest is read and dropped so that the answer (sent once it is all in)
        // reaches the client; past 64 MB the connection is cut instead.
        buffer.dropped += uploadSize.pointee
        uploadSize.pointee = 0
        return buffer.dropped <= RequestBuffer.dropLimit ? .YES : .NO
    }
    if uploadSize.pointee > 0, let sink = buffer.sink {
        if let uploadData {
            buffer.sinkAnswer = sink.write(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
        }
        uploadSize.pointee = 0
        return .YES
    }
    if uploadSize.pointee > 0 {
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        if buffer.body.count + uploadSize.pointee > server.limits.maxBodySize {
            buffer.tooLarge = true
        } else if let uploadData {
            buffer.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: uploadSize.pointee)
        }
        uploadSize.pointee = 0
        return .YES
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.deadlines.arrived(connection)  // the whole request is in
    if let later = buffer.later {
        // Resumed: the later answer was sent.
        buffer.later = nil
        defer { server.inFlight.subtract(1, ordering: .relaxed) }
        return queue(later.sent()?() ?? HTTPServer.stopping, on: connection, closing: buffer.closeAfter)
    }
    server.inFlight.add(1, ordering: .relaxed)
    var answered = true
    defer { if answered { server.inFlight.subtract(1, ordering: .relaxed) } }
    if server.draining.load(ordering: .acquiring) { return queue(HTTPServer.stopping, on: connection, closing: true) }
    var request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/")
    request.body = buffer.body
    request.sink = buffer.sink
    let values = KeyValues()
    withExtendedLifetime(values) {
        let collector = Unmanaged.passUnretained(values).toOpaque()
        request.headers = headerMap(buffer.headers)
        MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectKeyValue, collector)
        request.query = values.pairs.map { (name: $0.0, value: $0.1) }
    }
    request.remoteAddress = clientAddress(connection)
    if buffer.tooLarge { return queue(server.tooLarge(request), on: connection, closing: buffer.closeAfter) }
    if let answer = buffer.sinkAnswer { return queue(answer, on: connection, closing: true) }
    let later = LaterAnswer(connection: connection, waiting: server.waiting)
    if let response = server.handler(request, later) {
        if let take = response.upgrade {
            buffer.upgraded = true
            return queueUpgrade(response, take, server: server, on: connection)
        }
        return queue(response, on: connection, closing: buffer.closeAfter)
    }
    if let build = later.answerOrSuspend() { return queue(build(), on: connection, closing: buffer.closeAfter) }
    // Suspended: still in flight until the answer is queued after the resume.
    buffer.later = later
    answered = false
    return .YES
}

/// Releases the per-request buffer when libmicrohttpd is done with a request; the connection then
/// waits for the next request's headers.
func httpRequestCompleted(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    reason: MHD_RequestTerminationCode
) {
    let upgraded = slot?.pointee.map { Unmanaged<RequestBuffer>.fromOpaque($0).takeUnretainedValue().upgraded } ?? false
    if let context, let connection, reason == .REQUEST_TERMINATED_COMPLETED_OK, !upgraded {
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().deadlines.waitForHeaders(connection, socket: CMicroHTTPD_socket(connection))
    }
    guard let slot, let pointer = slot.pointee else { return }
    let buffer = Unmanaged<RequestBuffer>.fromOpaque(pointer)
    if buffer.takeUnretainedValue().later != nil, let context {
        // Closed while waiting for its later answer (the client left, or the server stopped).
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().inFlight.subtract(1, ordering: .relaxed)
    }
    buffer.release()
    slot.pointee = nil
}

final class KeyValues {
    var pairs: [(String, String)] = []
}

func collectKeyValue(context: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?) -> MHD_Result {
    guard let context, let key else { return .YES }
    let values = Unmanaged<KeyValues>.fromOpaque(context).takeUnretainedValue()
    values.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

private func clientAddress(_ connection: OpaquePointer) -> String {
    var address = [CChar](repeating: 0, count: 64)
    CMicroHTTPD_client_address(connection, &address, address.count)
    return address.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

/// Every value of one kind, in order, repeated names kept.
private func allValues(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String)] {
    let values = KeyValues()
    return withExtendedLifetime(values) {
        MHD_get_connection_values(connection, kind, collectKeyValue, Unmanaged.passUnretained(values).toOpaque())
        return values.pairs
    }
}

/// Headers by lowercased name (the last of repeated ones), as handlers look them up.
private func headerMap(_ headers: [(String, String)]) -> [String: String] {
    var map = [String: String](minimumCapacity: headers.count)
    for (name, value) in headers { map[name.lowercasedHeaderName] = value }
    return map
}

/// The request as its headers show it, for the server's body destination.
private func head(_ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?, _ headers: [(String, String)], _ connection: OpaquePointer) -> HTTPRequest {
    var request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/")
    request.headers = headerMap(headers)
    let values = KeyValues()
    withExtendedLifetime(values) {
        MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectKeyValue, Unmanaged.passUnretained(values).toOpaque())
        request.query = values.pairs.map { (name: $0.0, value: $0.1) }
    }
    request.remoteAddress = clientAddress(connection)
    return request
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
    let made: OpaquePointer?
    if let file = response.file {
        // libmicrohttpd owns the descriptor from here (it closes it with the response).
        made = MHD_create_response_from_fd_at_offset64(UInt64(file.length), file.descriptor, UInt64(file.offset))
        if made == nil { close(file.descriptor) }
    } else {
        made = response.body.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers {
        // A header libmicrohttpd refuses (a line break in it, say) would change the answer: answer nothing instead.
        guard MHD_add_response_header(made, name, value) == .YES else { return .NO }
    }
    if closing && !response.headers.contains(where: { $0.0.lowercased() == "connection" }) {
        guard MHD_add_response_header(made, "connection", "close") == .YES else { return .NO }
    }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// A 101 answer: libmicrohttpd sends it, then hands the socket to `take`.
private func queueUpgrade(
    _ response: HTTPResponse, _ take: @escaping @Sendable (UpgradedSocket) -> Void, server: HTTPServer, on connection: OpaquePointer
) -> MHD_Result {
    let takeover = Unmanaged.passRetained(UpgradeTakeover(take, server: Unmanaged.passUnretained(server))).toOpaque()
    guard let made = MHD_create_response_for_upgrade(httpUpgraded, takeover) else {
        Unmanaged<UpgradeTakeover>.fromOpaque(takeover).release()
        return .NO
    }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers where MHD_add_response_header(made, name, value) != .YES { return .NO }
    return MHD_queue_response(connection, 101, made)
}
