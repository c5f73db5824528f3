import CCurl
import Foundation

/// One easy handle and the request it carries; reused across requests.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    var responseHeaders: [String: String] = [:]
    var responseBody = Data()
    private var completion: (@Sendable (TransportResult) -> Void)?

    /// A handle with the options every request shares; nil when libcurl refuses one.
    init?(options: CurlTransport.Options) {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = [
            CCurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(options.cleartext ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS)),
            CCurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1),
            CCurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            CCurl_easy_setopt_long(easy, CURLOPT_POST, 1),
            // APNs answers are tiny: small buffers keep thousands of handles cheap.
            CCurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 4096),
            CCurl_easy_setopt_long(easy, CURLOPT_UPLOAD_BUFFERSIZE, 16384),
            CCurl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer),
            // libcurl 7.88 cannot send HTTP/2 PINGs on a multi handle's connections
            // (curl_easy_upkeep only reaches an easy handle's own pool), so idle connections are
            // probed with TCP keepalive: after 60 s idle, every 30 s.
            CCurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1),
            CCurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPIDLE, 60),
            CCurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPINTVL, 30),
            CCurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(options.timeout.components.seconds * 1000)),
            CCurl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlHeader),
            CCurl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me),
            CCurl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlWrite),
            CCurl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me),
        ]
        if let caFile = options.caFile { codes.append(CCurl_easy_setopt_ptr(easy, CURLOPT_CAINFO, caFile)) }
        if let certificate = options.certificate {
            codes.append(CCurl_easy_setopt_ptr(easy, CURLOPT_SSLCERT, certificate.certificateFile))
            codes.append(CCurl_easy_setopt_ptr(easy, CURLOPT_SSLCERTTYPE, certificate.format.rawValue))
            if let key = certificate.keyFile { codes.append(CCurl_easy_setopt_ptr(easy, CURLOPT_SSLKEY, key)) }
            if let password = certificate.password { codes.append(CCurl_easy_setopt_ptr(easy, CURLOPT_KEYPASSWD, password)) }
        }
        guard codes.allSatisfy({ $0 == CURLE_OK }) else {
            curl_easy_cleanup(easy)
            errorBuffer.deallocate()
            return nil
        }
    }

    deinit {
        curl_slist_free_all(headerList)
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }

    /// Sets what changes from request to request: the URL, headers and body.
    func prepare(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) -> String? {
        curl_slist_free_all(headerList)
        headerList = nil
        responseHeaders.removeAll(keepingCapacity: true)
        responseBody.removeAll(keepingCapacity: true)
        errorBuffer[0] = 0
        self.completion = completion
        for line in request.headers { headerList = curl_slist_append(headerList, line) }
        headerList = curl_slist_append(headerList, "accept:")
        headerList = curl_slist_append(headerList, "content-type: application/json")
        let codes = [
            CCurl_easy_setopt_ptr(easy, CURLOPT_URL, request.url),
            CCurl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
            request.body.withUnsafeBytes { CCurl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) },
            CCurl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headerList),
        ]
        if let failed = codes.first(where: { $0 != CURLE_OK }) { return String(cString: curl_easy_strerror(failed)) }
        return nil
    }

    /// Hands the result to the waiting caller.
    ///
    /// A final status that arrived counts even if the stream was then reset: a server may answer
    /// before reading the whole body and reset the rest of the upload (RFC 9113, 8.1), and the
    /// status is APNs' verdict.
    func complete(_ code: CURLcode) {
        var status = 0
        CCurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard code == CURLE_OK || (code == CURLE_HTTP2_STREAM && status >= 200) else {
            let detail = String(cString: errorBuffer)
            finish(.failure(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
            return
        }
        finish(.response(status: status, headers: responseHeaders, body: responseBody))
    }

    func finish(_ result: TransportResult) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}

// libcurl's callbacks, as plain functions (see CONVENTIONS); the transfer travels as user data.

func curlHeader(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let user else { return length }
    let bytes = UnsafeRawBufferPointer(start: data, count: length)
    // Only the apns-* headers matter; skip the rest without building strings.
    guard length > 5, bytes[0] | 0x20 == UInt8(ascii: "a"), bytes[4] == UInt8(ascii: "-"),
        let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
    else { return length }
    var end = length
    while end > colon + 1, bytes[end - 1] == 10 || bytes[end - 1] == 13 || bytes[end - 1] == 32 { end -= 1 }
    var start = colon + 1
    while start < end, bytes[start] == 32 { start += 1 }
    let name = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    transfer.responseHeaders[name] = String(decoding: bytes[start..<end], as: UTF8.self)
    return length
}

func curlWrite(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let user else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    if transfer.responseBody.count < 64 * 1024 {
        transfer.responseBody.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    }
    return length
}
