import Foundation
import SoarCore
import SoarCrypto

/// Sends notifications: the whole protocol is one call, so every transport gets the helpers in
/// its extensions.
public protocol APNsSending: Sendable {
    /// Sends one notification and says how it ended; never throws.
    func send(_ notification: APNsNotification) async -> APNsOutcome
}

/// An APNs provider over HTTP/2: token or certificate auth, pooled multiplexed connections,
/// Apple's limits checked before sending, retries with back-off for what is retryable.
public final class APNsClient: APNsSending {
    public let configuration: APNsConfiguration
    let transport: any Transport
    let tokens: ProviderTokenCache?

    /// - Throws: ``APNsConfigurationError`` when the URL, CA file or client certificate is unusable.
    public convenience init(_ configuration: APNsConfiguration) throws(APNsConfigurationError) {
        var certificate: CertificateCredentials?
        if case .certificate(let credentials) = configuration.credentials { certificate = credentials }
        let transport = try H2Transport(baseURL: configuration.environment.baseURL, options: .init(
            caFile: configuration.caFile, certificate: certificate, maxConnections: configuration.maxConnections,
            maxStreamsPerConnection: configuration.maxStreamsPerConnection,
            timeout: configuration.timeout, connectTimeout: configuration.connectTimeout, pingInterval: configuration.pingInterval))
        self.init(configuration, transport: transport)
    }

    init(_ configuration: APNsConfiguration, transport: any Transport) {
        self.configuration = configuration
        self.transport = transport
        if case .token(let team, let key, let p8) = configuration.credentials {
            tokens = ProviderTokenCache(teamID: team, keyID: key, key: p8, refreshInterval: configuration.tokenRefresh, now: configuration.now)
        } else {
            tokens = nil
        }
    }

    deinit { transport.shutdown() }

    /// Closes the connections; sends after this fail at once.
    public func shutdown() { transport.shutdown() }

    public func send(_ notification: APNsNotification) async -> APNsOutcome {
        let request: APNsRequest
        do {
            request = try APNsRequest(notification, bundleID: configuration.bundleID)
        } catch {
            return .failed(.invalidRequest(error))
        }
        return await withCheckedContinuation { continuation in
            dispatch(request, attempt: 1) { continuation.resume(returning: $0) }
        }
    }

    /// Sends `request`, retrying as the policy allows, and reports the final outcome once.
    ///
    /// - Parameter answerLost: an earlier attempt left and its answer never came.
    func dispatch(_ request: APNsRequest, attempt: Int, refreshedToken: Bool = false, answerLost: Bool = false, completion: @escaping @Sendable (APNsOutcome) -> Void) {
        if let submission = submission(request, attempt: attempt, refreshedToken: refreshedToken, answerLost: answerLost, completion: completion) {
            transport.submit([submission])
        }
    }

    /// First attempts of many requests, handed to the transport together; each is retried alone.
    func dispatch(_ batch: [(request: APNsRequest, completion: @Sendable (APNsOutcome) -> Void)]) {
        transport.submit(batch.compactMap { submission($0.request, attempt: 1, refreshedToken: false, answerLost: false, completion: $0.completion) })
    }

    /// `request` as the transport takes it, its completion wrapped in the retry policy; nil when it
    /// has ended already (no provider token could be made, and `completion` has had the failure).
    private func submission(
        _ request: APNsRequest, attempt: Int, refreshedToken: Bool, answerLost: Bool, completion: @escaping @Sendable (APNsOutcome) -> Void
    ) -> TransportSubmission? {
        var signed: String?
        var authorization: String?
        if let tokens {
            do {
                let current = try tokens.current()
                signed = current.token
                authorization = current.authorization
            } catch {
                completion(.failed(APNsFailure(status: 0, reason: .invalidProviderToken, apnsID: request.apnsID, detail: error.description, attempts: attempt)))
                return nil
            }
        }
        let token = signed
        let transportRequest = TransportRequest(path: request.path, headers: request.headers, authorization: authorization, body: request.body)
        return TransportSubmission(request: transportRequest) { [self] result in
            let outcome: APNsOutcome
            switch result {
            case .response(let status, let headers, let body):
                outcome = ResponseMapping.outcome(status: status, headers: headers, body: body, apnsID: request.apnsID, attempts: attempt)
            case .failure(let error):
                outcome = .failed(.transport(error, apnsID: request.apnsID, attempts: attempt, lostBefore: answerLost))
            }
            guard let failure = outcome.failure else { return completion(outcome) }
            let lost = answerLost || failure.mayHaveBeenDelivered
            if failure.reason == .expiredProviderToken, !refreshedToken, let token {
                tokens?.invalidate(token)
                return dispatch(request, attempt: attempt + 1, refreshedToken: true, answerLost: lost, completion: completion)
            }
            guard configuration.retry.shouldRetry(failure, attempts: attempt) else { return completion(outcome) }
            let delay = configuration.retry.delay(beforeRetry: attempt, random: configuration.random())
            let clock = configuration.clock
            Task {
                try? await clock.sleep(for: delay)
                self.dispatch(request, attempt: attempt + 1, refreshedToken: refreshedToken, answerLost: lost, completion: completion)
            }
        }
    }
}

extension APNsSending {
    /// A visible alert with a title and body.
    public func sendAlert(title: String, body: String, to token: String, custom: [String: JSONValue] = [:]) async -> APNsOutcome {
        await send(APNsNotification(token: token, payload: .alert(title: title, body: body, custom: custom)))
    }

    /// A silent `content-available` update, sent at priority 5 as Apple requires.
    public func sendBackground(to token: String, custom: [String: JSONValue] = [:]) async -> APNsOutcome {
        await send(APNsNotification(token: token, payload: Payload(aps: APS(contentAvailable: true), custom: custom), pushType: .background))
    }
}
