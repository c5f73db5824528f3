import Foundation
import SoarCore
import SoarCrypto
import SoarHTTP2
import SoarHTTP

/// A local server that behaves like APNs for everything a provider can observe.
///
/// Speaks HTTP/2 over TLS (ALPN h2) or h2c, validates requests as Apple documents, records
/// deliveries and injects faults. Starts serving in `init`; ``stop()`` ends it.
public final class APNsEmulator: Sendable {
    public let state: EmulatorState
    /// The control plane, for callers in the same process (the console's Emulator page).
    public let control: ControlAPI
    public let configuration: EmulatorConfiguration
    private let server: H2Server<EmulatorService>
    private let productionServer: H2Server<EmulatorService>?
    private let controlServer: HTTPServer?

    /// - Throws: ``EmulatorError`` when a port is taken or the TLS files do not load.
    public init(_ configuration: EmulatorConfiguration) throws(EmulatorError) {
        self.configuration = configuration
        let state = EmulatorState(keys: configuration.keys, keep: configuration.keep)
        state.faults = configuration.faults
        let now = configuration.now
        for token in configuration.unregistered {
            state.setMark(.unregistered(since: Int64(now().timeIntervalSince1970 * 1000)), for: token)
        }
        for token in configuration.bad { state.setMark(.bad, for: token) }
        self.state = state

        var tls: TLSServerContext?
        if !configuration.h2c {
            guard let cert = configuration.certificateFile, let key = configuration.keyFile else {
                throw EmulatorError("TLS needs a certificate and a key (or choose h2c)")
            }
            do {
                tls = try TLSServerContext(certificateFile: cert, keyFile: key, clientCAFile: configuration.clientCAFile)
            } catch {
                throw EmulatorError(error.description)
            }
        }
        let relay = ListenerRelay()
        let control = ControlAPI(state: state, now: now) { accepting in relay.servers.forEach { $0.setAccepting(accepting) } }
        self.control = control
        func service(_ environment: String?) -> EmulatorService {
            EmulatorService(
                validator: RequestValidator(state: state, allowedTopics: configuration.allowedTopics, now: now),
                control: control, streamLimits: (configuration.initialStreamLimit, configuration.raisedStreamLimit), log: configuration.deliveryLog,
                environment: environment)
        }
        let split = configuration.productionPort != nil
        let server: H2Server<EmulatorService>
        do { server = try H2Server(host: configuration.host, port: configuration.port, tls: tls, handler: service(split ? "sandbox" : nil)) } catch {
            throw EmulatorError(error.description)
        }
        if let productionPort = configuration.productionPort {
            do {
                productionServer = try H2Server(host: configuration.host, port: productionPort, tls: tls, handler: service("production"))
            } catch {
                server.stop()
                throw EmulatorError(error.description)
            }
        } else {
            productionServer = nil
        }
        relay.servers = [server] + (productionServer.map { [$0] } ?? [])
        if !configuration.faults.accepting { relay.servers.forEach { $0.setAccepting(false) } }
        self.server = server
        if let controlPort = configuration.controlPort {
            do {
                controlServer = try HTTPServer(host: configuration.host, port: controlPort) { request in
                    let answer = control.handle(method: request.method, path: request.path, body: request.body)
                    return HTTPResponse(status: answer.status, headers: [("content-type", "application/json")], body: answer.body)
                }
            } catch {
                server.stop()
                productionServer?.stop()
                throw EmulatorError(error.description)
            }
        } else {
            controlServer = nil
        }
    }

    public var port: UInt16 { server.port }
    public var controlPort: UInt16? { controlServer?.port }

    /// The base URL providers send to, e.g. `https://127.0.0.1:2197` (the sandbox's, with a production port).
    public var url: String { url(port) }
    /// The production listener's base URL, when there is one.
    public var productionURL: String? { productionServer.map { url($0.port) } }

    private func url(_ port: UInt16) -> String { "\(configuration.h2c ? "http" : "https")://\(Self.hostForURL(configuration.host)):\(port)" }
    public var controlURL: String {
        controlPort.map { "http://\(Self.hostForURL(configuration.host)):\($0)" } ?? url + "/_emulator"
    }

    public func stop() {
        controlServer?.stop()
        server.stop()
        productionServer?.stop()
    }

    static func hostForURL(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}

/// Lets the control API reach the listeners that are created after it.
private final class ListenerRelay: @unchecked Sendable {
    var servers: [H2Server<EmulatorService>] = []
}
