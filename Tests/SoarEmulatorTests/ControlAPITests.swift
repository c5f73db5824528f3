import Foundation
import SoarCore
import Testing

@testable import SoarEmulator

/// The control plane's answers to wrong methods, bad tokens and bad bodies.
@Suite(.timeLimit(.minutes(5))) struct ControlAPITests {
    let state = EmulatorState()
    var api: ControlAPI { ControlAPI(state: state, now: { Date(timeIntervalSince1970: 1000) }, onAcceptingChange: { _ in }) }

    func call(_ method: String, _ path: String, _ body: String = "") -> (status: Int, error: String?) {
        let answer = api.handle(method: method, path: path, body: Data(body.utf8))
        return (answer.status, try? JSONValue.read(answer.body).objectValue?["error"]?.stringValue)
    }

    @Test func aWrongMethodOnAKnownPathIs405AndSaysWhichMethodsWork() {
        let answer = call("PUT", "/stats")
        #expect(answer.status == 405)
        #expect(answer.error?.contains("GET") == true)
        #expect(call("GET", "/tokens/00aa/unregister").status == 405)
        #expect(call("GET", "/nowhere").status == 404)
    }

    @Test func aTokenThatIsNotHexIsRefused() {
        #expect(call("POST", "/tokens/xyz/bad").status == 400)
        #expect(call("POST", "/tokens/abc/unregister").status == 400, "odd length")
        #expect(state.mark("xyz") == nil)
    }

    @Test func aTimestampThatIsNotMillisecondsIsRefusedNotIgnored() {
        let answer = call("POST", "/tokens/00aa/unregister", #"{"timestamp":"x"}"#)
        #expect(answer.status == 400)
        #expect(answer.error?.contains("timestamp") == true)
        #expect(call("POST", "/tokens/00aa/unregister", "not json").status == 400)
        #expect(state.mark("00aa") == nil, "nothing changed")
        #expect(call("POST", "/tokens/00aa/unregister", #"{"timestamp":1733200000000}"#).status == 200)
        #expect(state.mark("00aa") == .unregistered(since: 1_733_200_000_000))
        #expect(call("POST", "/tokens/00bb/unregister").status == 200)
        #expect(state.mark("00bb") == .unregistered(since: 1_000_000))
    }

    @Test func aTokenIsRegisteredToOneEnvironmentAndForgotten() {
        #expect(call("POST", "/tokens/00aa/environment", #"{"environment":"staging"}"#).status == 400)
        #expect(call("POST", "/tokens/00aa/environment", "").status == 400)
        #expect(state.environment(of: "00aa") == nil, "nothing changed")
        #expect(call("POST", "/tokens/00AA/environment", #"{"environment":"production"}"#).status == 200)
        #expect(state.environment(of: "00aa") == "production")
        #expect(call("DELETE", "/tokens/00aa").status == 200)
        #expect(state.environment(of: "00aa") == nil)
    }
}
