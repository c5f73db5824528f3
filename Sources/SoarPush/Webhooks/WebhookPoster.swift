import CCurl
import Foundation
import SoarCore

#if canImport(Glibc)
    import Glibc
#endif

/// POSTs many requests at once through one libcurl multi handle: at most `concurrency` in
/// flight, each bounded by `timeout`, connections kept alive from one batch to the next. No
/// redirects are followed and only http and https are spoken.
///
/// Used from one thread at a time (the dispatcher's).
final class WebhookPoster: @unchecked Sendable {
    struct Request {
        let url: String
        let body: Data
        let headers: [(String, String)]
    }

    /// The receiver's status, or why there was none.
    struct Response: Equatable {
        let status: Int?
        let error: String?
    }

    private let multi: UnsafeMutableRawPointer
    private let timeout: Duration
    private let concurrency: Int
    /// Answers' bodies are not read: libcurl writes them here.
    private let discard: UnsafeMutablePointer<FILE>?

    /// libcurl's global set-up, once, before any thread uses it.
    private static let started: Void = { _ = curl_global_init(3) }()  // CURL_GLOBAL_DEFAULT

    init(timeout: Duration, concurrency: Int = 32) {
        Self.started
        multi = curl_multi_init()!
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        discard = fopen("/dev/null", "w")
    }

    deinit {
        curl_multi_cleanup(multi)
        if let discard { fclose(discard) }
    }

    /// Each request's answer, in order.
    func post(_ requests: [Request]) -> [Response] {
        var responses = [Response?](repeating: nil, count: requests.count)
        var next = 0
        var inFlight: [UnsafeMutableRawPointer: (index: Int, headers: UnsafeMutablePointer<curl_slist>?)] = [:]
        while next < requests.count || !inFlight.isEmpty {
            while inFlight.count < concurrency, next < requests.count {
                switch start(requests[next]) {
                case .started(let easy, let headers): inFlight[easy] = (next, headers)
                case .failed(let error): responses[next] = Response(status: nil, error: error)
                }
                next += 1
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle, let entry = inFlight.removeValue(forKey: easy) else { continue }
                let result = message.pointee.data.result
                responses[entry.index] = result == CURLE_OK
                    ? Response(status: CCurl_response_code(easy), error: nil)
                    : Response(status: nil, error: String(cString: curl_easy_strerror(result)))
                curl_multi_remove_handle(multi, easy)
                curl_easy_cleanup(easy)
                curl_slist_free_all(entry.headers)
            }
            if !inFlight.isEmpty { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        return responses.map { $0 ?? Response(status: nil, error: "not sent") }
    }

    private enum Start {
        case started(UnsafeMutableRawPointer, UnsafeMutablePointer<curl_slist>?)
        case failed(String)
    }

    private func start(_ request: Request) -> Start {
        guard let easy = curl_easy_init() else { return .failed("cannot start an HTTP client") }
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "content-type: application/json")
        // No `Expect: 100-continue` wait before the body.
        headers = curl_slist_append(headers, "expect:")
        headers = curl_slist_append(headers, "user-agent: Soar-Webhooks/1")
        for (name, value) in request.headers { headers = curl_slist_append(headers, "\(name): \(value)") }
        var problem = CURLE_OK
        func set(_ code: CURLcode) { if problem == CURLE_OK { problem = code } }
        set(CCurl_set_string(easy, CURLOPT_URL, request.url))
        set(CCurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(CCurl_set_long(easy, CURLOPT_POST, 1))
        set(CCurl_set_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count))
        request.body.withUnsafeBytes { bytes in
            // Copied by libcurl: the request owns its body.
            set(CCurl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)))
        }
        set(CCurl_set_pointer(easy, CURLOPT_HTTPHEADER, headers.map { UnsafeMutableRawPointer($0) }))
        set(CCurl_set_pointer(easy, CURLOPT_WRITEDATA, discard.map { UnsafeMutableRawPointer($0) }))
        set(CCurl_set_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout.milliseconds)))
        set(CCurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 5000))
        set(CCurl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        set(CCurl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        var failure = problem == CURLE_OK ? nil : String(cString: curl_easy_strerror(problem))
        if failure == nil {
            let added = curl_multi_add_handle(multi, easy)
            if added != CURLM_OK { failure = String(cString: curl_multi_strerror(added)) }
        }
        if let failure {
            curl_easy_cleanup(easy)
            curl_slist_free_all(headers)
            return .failed(failure)
        }
        return .started(easy, headers)
    }
}
