import CCurl
import Foundation
import Synchronization

/// HTTP/2 over TLS through libcurl's multi interface: many streams on each of a few connections,
/// driven by one thread.
///
/// libcurl honours the server's SETTINGS_MAX_CONCURRENT_STREAMS (APNs' 1 until the first success,
/// then more), waits to multiplex rather than opening connections (PIPEWAIT), and opens at most
/// `maxConnections`; requests beyond that queue inside libcurl.
final class CurlTransport: Transport, @unchecked Sendable {
    struct Options: Sendable {
        var caFile: String?
        var certificate: CertificateCredentials?
        var cleartext = false
        var maxConnections = 4
        var maxStreamsPerConnection = 1000
        var timeout: Duration = .seconds(30)
    }

    private let multi: UnsafeMutableRawPointer
    private let options: Options
    private let pending = Mutex<[(TransportRequest, @Sendable (TransportResult) -> Void)]>([])
    private let running = Atomic(true)
    private let finished = DispatchSemaphore(value: 0)
    private let loopThread = Atomic<pthread_t>(0)
    // Loop thread only:
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idle: [CurlTransfer] = []

    init(_ options: Options) throws(APNsConfigurationError) {
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { throw .init("libcurl could not create a multi handle") }
        self.multi = multi
        self.options = options
        CCurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        CCurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, options.maxConnections)
        CCurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, options.maxStreamsPerConnection)
        let thread = Thread { [self] in
            loopThread.store(pthread_self(), ordering: .relaxed)
            loop()
        }
        thread.name = "soar-apns-curl"
        thread.start()
    }

    func submit(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard running.load(ordering: .acquiring) else {
            completion(.failure("the APNs client was shut down"))
            return
        }
        pending.withLock { $0.append((request, completion)) }
        // From a completion (the loop thread) the loop drains the queue next anyway; waking it
        // would cost a syscall per request.
        if pthread_self() != loopThread.load(ordering: .relaxed) { curl_multi_wakeup(multi) }
    }

    /// Fails what is still queued or in flight and stops the thread.
    func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        curl_multi_wakeup(multi)
        finished.wait()
    }

    deinit { shutdown() }

    private func loop() {
        var active: Int32 = 0
        while running.load(ordering: .acquiring) {
            for (request, completion) in pending.withLock({ queue in defer { queue.removeAll(keepingCapacity: true) }; return queue }) {
                start(request, completion)
            }
            curl_multi_perform(multi, &active)
            collect()
            curl_multi_poll(multi, nil, 0, transfers.isEmpty ? 1000 : 100, nil)
        }
        for transfer in transfers.values {
            curl_multi_remove_handle(multi, transfer.easy)
            transfer.finish(.failure("the APNs client was shut down"))
        }
        transfers.removeAll()
        for (_, completion) in pending.withLock({ $0 }) { completion(.failure("the APNs client was shut down")) }
        idle.removeAll()
        curl_multi_cleanup(multi)
        finished.signal()
    }

    private func start(_ request: TransportRequest, _ completion: @escaping @Sendable (TransportResult) -> Void) {
        let transfer: CurlTransfer
        if let reused = idle.popLast() {
            transfer = reused
        } else if let made = CurlTransfer(options: options) {
            transfer = made
        } else {
            completion(.failure("libcurl refused the transport's options (CA file, certificate)"))
            return
        }
        if let problem = transfer.prepare(request, completion: completion) {
            idle.append(transfer)
            completion(.failure(problem))
            return
        }
        transfers[transfer.easy] = transfer
        curl_multi_add_handle(multi, transfer.easy)
    }

    private func collect() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = transfers.removeValue(forKey: easy)
            else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            transfer.complete(code)
            // A handle whose transfer failed may keep state that fails the next one: drop it.
            if code == CURLE_OK && idle.count < 1024 { idle.append(transfer) }
        }
    }
}

/// `curl_global_init` once per process, before any handle.
enum CurlGlobal {
    private static let done: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()
    static func initialize() { _ = done }
}
