import Foundation
import SoarCore
import SoarHTTP2
import Synchronization

/// The APNs behaviour behind the HTTP/2 layer: faults, validation, recording, and the control API
/// under `/_emulator/`.
final class EmulatorService: H2RequestHandler {
    let validator: RequestValidator
    let control: ControlAPI
    let initialStreamLimit: UInt32
    let raisedStreamLimit: UInt32
    let log: (@Sendable (String) -> Void)?
    /// This listener's environment when there is one for each; nil answers every token.
    let environment: String?
    var state: EmulatorState { validator.state }

    init(
        validator: RequestValidator, control: ControlAPI, streamLimits: (UInt32, UInt32), log: (@Sendable (String) -> Void)?,
        environment: String? = nil
    ) {
        self.validator = validator
        self.control = control
        (initialStreamLimit, raisedStreamLimit) = streamLimits
        self.log = log
        self.environment = environment
    }

    func connectionOpened() { state.connectionOpened() }
    func connectionClosed() { state.connectionClosed() }
    func pingReceived() { state.pingReceived() }
    func answerSent() { state.deliveryAnswered() }
    func answersLost(_ count: Int) { state.deliveryAnswersLost(count) }

    /// A delivery's answer is counted (``H2Action/counted``): sent, or lost with its connection.
    func handle(_ request: H2Request, state auth: inout ConnectionAuth, number: Int) -> H2Action {
        if request.path.hasPrefix(ControlAPI.prefix) {
            let answer = control.handle(method: request.method, path: String(request.path.dropFirst(ControlAPI.prefix.count - 1)), body: request.body)
            return H2Action(response: H2Response(status: answer.status, headers: [("content-type", "application/json")], body: answer.body))
        }
        let (count, faults) = state.countRequest()
        if let dropAfter = faults.dropAfter, number >= dropAfter { return H2Action(drop: true) }
        var action = H2Action(delayMilliseconds: faults.latencyMilliseconds, goawayAfter: faults.goawayAfter)
        if faults.status != nil, count % faults.every == 0 {
            state.recordRejection(faults.reason, injected: true)
            action.response = Self.rejection(reason: faults.reason.rawValue, status: faults.reason.status, apnsID: request.header("apns-id") ?? RandomUUID.lowercase(), timestamp: nil)
            return action
        }
        var verdict = validator.validate(request, auth: &auth)
        let token = String(request.path.dropFirst("/3/device/".count)).lowercased()
        // A token registered to the other environment is a BadDeviceToken here, as Apple answers it.
        if case .accepted(let apnsID, _) = verdict, let environment, let registered = state.environment(of: token), registered != environment {
            verdict = .rejected(reason: APNsReason.badDeviceToken.rawValue, status: 400, apnsID: apnsID, timestamp: nil)
        }
        switch verdict {
        case .accepted(let apnsID, let payload):
            let headers = request.headers.filter { $0.0.hasPrefix("apns-") }
            var delivery = Delivery(time: validator.now(), token: token, apnsID: apnsID, headers: headers, payload: payload)
            delivery.environment = environment
            state.record(delivery)
            action.counted = true
            log?(delivery.jsonLine)
            action.response = H2Response(status: 200, headers: [("apns-id", apnsID), ("apns-unique-id", RandomUUID.lowercase())])
        case .rejected(let reason, let status, let apnsID, let timestamp):
            state.recordRejection(APNsReason(rawValue: reason))
            action.response = Self.rejection(reason: reason, status: status, apnsID: apnsID, timestamp: timestamp)
        }
        return action
    }

    /// Apple's error answer: `{"reason":"…"}`, plus `"timestamp"` for 410.
    static func rejection(reason: String, status: Int, apnsID: String, timestamp: Int64?) -> H2Response {
        var body = "{\"reason\":\"\(reason)\""
        if let timestamp { body += ",\"timestamp\":\(timestamp)" }
        body += "}"
        return H2Response(status: status, headers: [("apns-id", apnsID), ("content-type", "application/json")], body: Data(body.utf8))
    }
}
