import CMicroHTTPD
import Foundation
import Synchronization

/// The body of one request as it arrives, kept in libmicrohttpd's per-connection slot.
final class RequestBuffer {
    var body = Data()
    var tooLarge = false
    /// Set while the connection is suspended waiting for the handler's later answer.
    var later: LaterAnswer?
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
    guard let context, let connection, let slot, let uploadSize else { return .NO }
    guard let pointer = slot.pointee else {
        slot.pointee = Unmanaged.passRetained(RequestBuffer()).toOpaque()
        return .YES
    }
    let buffer = Unmanaged<RequestBuffer>.fromOpaque(pointer).takeUnretainedValue()
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
    if let later = buffer.later {
        // Resumed: the later answer was sent.
        buffer.later = nil
        defer { server.inFlight.subtract(1, ordering: .relaxed) }
        return queue(later.sent()?() ?? HTTPServer.stopping, on: connection)
    }
    server.inFlight.add(1, ordering: .relaxed)
    var answered = true
    defer { if answered { server.inFlight.subtract(1, ordering: .relaxed) } }
    if server.draining.load(ordering: .acquiring) { return queue(HTTPServer.stopping, on: connection) }
    var request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/")
    request.body = buffer.body
    let values = KeyValues()
    withExtendedLifetime(values) {
        let collector = Unmanaged.passUnretained(values).toOpaque()
        MHD_get_connection_values(connection, .HEADER_KIND, collectKeyValue, collector)
        request.headers = values.pairs.reduce(into: [:]) { $0[$1.0.lowercased()] = $1.1 }
        values.pairs.removeAll()
        MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectKeyValue, collector)
        request.query = values.pairs.map { (name: $0.0, value: $0.1) }
    }
    var address = [CChar](repeating: 0, count: 64)
    CMicroHTTPD_client_address(connection, &address, address.count)
    request.remoteAddress = address.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    if buffer.tooLarge { return queue(server.tooLarge(request), on: connection) }
    let later = LaterAnswer(connection: connection, waiting: server.waiting)
    if let response = server.handler(request, later) { return queue(response, on: connection) }
    if let build = later.answerOrSuspend() { return queue(build(), on: connection) }
    // Suspended: still in flight until the answer is queued after the resume.
    buffer.later = later
    answered = false
    return .YES
}

/// Releases the per-request buffer when libmicrohttpd is done with a request.
func httpRequestCompleted(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    reason: MHD_RequestTerminationCode
) {
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

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made = response.body.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers {
        // A header libmicrohttpd refuses (a line break in it, say) would change the answer: answer nothing instead.
        guard MHD_add_response_header(made, name, value) == .YES else { return .NO }
    }
    return MHD_queue_response(connection, UInt32(response.status), made)
}
