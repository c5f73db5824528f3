import Foundation
import Testing

@testable import SoarCore

@Suite(.timeLimit(.minutes(5))) struct PayloadTests {
    /// Every documented key of `aps`, plus custom keys, in one document.
    static let everything = """
        {"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L.png","title-loc-key":"TK",\
        "title-loc-args":["a"],"subtitle-loc-key":"SK","subtitle-loc-args":["b"],"loc-key":"K","loc-args":["c","d"]},\
        "badge":3,"sound":{"critical":1,"name":"alarm.caf","volume":0.5},"thread-id":"chat-1","category":"MSG",\
        "content-available":1,"mutable-content":1,"target-content-id":"w1","interruption-level":"time-sensitive",\
        "relevance-score":0.75,"filter-criteria":"work","timestamp":1714566600,"event":"update",\
        "content-state":{"score":"2-1"},"stale-date":1714570200,"dismissal-date":1714573800,\
        "attributes-type":"MatchAttributes","attributes":{"home":"A"},"future-key":{"x":[1,2.5]}},\
        "deeplink":"soar:///notifications","url":"https://dialed.evo.co/campaigns","target_url":"/brands/123/hub",\
        "kind":"early_viral_alert","count":7}
        """

    @Test func decodeThenEncodeKeepsEveryKey() throws {
        let original = try JSONDecoder().decode(JSONValue.self, from: Data(Self.everything.utf8))
        let payload = try Payload(json: Data(Self.everything.utf8))
        let again = try JSONDecoder().decode(JSONValue.self, from: payload.encoded())
        #expect(again == original)
        let viaCodable = try JSONDecoder().decode(Payload.self, from: Data(Self.everything.utf8))
        #expect(viaCodable == payload)
    }

    @Test func typedAccessorsReadEveryDocumentedKey() throws {
        let aps = try Payload(json: Data(Self.everything.utf8)).aps
        guard case .content(let alert) = aps.alert else { Issue.record("alert is not a dictionary"); return }
        #expect(alert.title == "T" && alert.subtitle == "S" && alert.body == "B" && alert.launchImage == "L.png")
        #expect(alert.titleLocKey == "TK" && alert.titleLocArgs == ["a"] && alert.subtitleLocKey == "SK")
        #expect(alert.subtitleLocArgs == ["b"] && alert.locKey == "K" && alert.locArgs == ["c", "d"])
        #expect(aps.badge == 3)
        #expect(aps.sound == .critical(name: "alarm.caf", volume: 0.5))
        #expect(aps.threadID == "chat-1" && aps.category == "MSG")
        #expect(aps.contentAvailable && aps.mutableContent)
        #expect(aps.targetContentID == "w1" && aps.interruptionLevel == .timeSensitive)
        #expect(aps.relevanceScore == 0.75 && aps.filterCriteria == "work")
        #expect(aps.timestamp == 1_714_566_600 && aps.event == "update" && aps.contentState == ["score": "2-1"])
        #expect(aps.staleDate == 1_714_570_200 && aps.dismissalDate == 1_714_573_800)
        #expect(aps.attributesType == "MatchAttributes" && aps.attributes == ["home": "A"])
    }

    @Test func buildsCompactJSON() {
        var payload = Payload.alert(title: "Hi", body: "There", custom: ["deeplink": "soar:///notifications"])
        payload.aps.badge = 1
        let text = String(decoding: payload.encoded(), as: UTF8.self)
        #expect(text == #"{"aps":{"alert":{"body":"There","title":"Hi"},"badge":1,"sound":"default"},"deeplink":"soar:///notifications"}"#)
        #expect(payload.size == text.utf8.count)
    }

    @Test func alertMayBeAPlainString() throws {
        let payload = try Payload(json: Data(#"{"aps":{"alert":"Hello","sound":"ping.caf"}}"#.utf8))
        #expect(payload.aps.alert == .text("Hello"))
        #expect(payload.aps.sound == .named("ping.caf"))
    }

    @Test func settingNilRemovesAKey() {
        var aps = APS(badge: 4, contentAvailable: true)
        aps.badge = nil
        aps.contentAvailable = false
        #expect(aps.fields.isEmpty)
    }

    @Test func limitIs4096ExceptVoIP() throws {
        let overhead = Payload.alert(title: "", body: "", sound: nil).size
        let atLimit = Payload.alert(title: "", body: String(repeating: "x", count: 4096 - overhead), sound: nil)
        #expect(atLimit.size == 4096)
        #expect(throws: Never.self) { try atLimit.checkedData(for: .alert) }
        let over = Payload.alert(title: "", body: String(repeating: "x", count: 4097 - overhead), sound: nil)
        let error = #expect(throws: PayloadError.self) { try over.checkedData(for: .alert) }
        #expect(error?.description == "the payload is 4097 bytes, over the 4096-byte limit for alert notifications")
        #expect(throws: Never.self) { try over.checkedData(for: .voip) }
        let overVoIP = Payload.alert(title: "", body: String(repeating: "x", count: 5121 - overhead), sound: nil)
        #expect(throws: PayloadError.self) { try overVoIP.checkedData(for: .voip) }
    }

    @Test(arguments: [
        ("", "the payload is not valid JSON"),
        ("{", "the payload is not valid JSON"),
        ("[1]", "the payload must be a JSON object"),
        (#"{"alert":"x"}"#, #"the payload has no "aps" dictionary"#),
        (#"{"aps":"x"}"#, #""aps" must be an object, not string"#),
        (#"{"aps":{"badge":"1"}}"#, #""aps.badge" must be an integer, not string"#),
        (#"{"aps":{"badge":1.5}}"#, #""aps.badge" must be an integer, not number"#),
        (#"{"aps":{"badge":-1}}"#, #""aps.badge" must not be negative"#),
        (#"{"aps":{"alert":5}}"#, #""aps.alert" must be a string or an object, not number"#),
        (#"{"aps":{"alert":{"loc-args":[1]}}}"#, #""aps.alert.loc-args" must be an array of strings, not array"#),
        (#"{"aps":{"sound":{"volume":"loud"}}}"#, #""aps.sound.volume" must be a number, not string"#),
        (#"{"aps":{"interruption-level":"urgent"}}"#, #""aps.interruption-level" must be passive, active, time-sensitive or critical, not "urgent""#),
        (#"{"aps":{"content-state":[]}}"#, #""aps.content-state" must be an object, not array"#),
    ])
    func rejectsBadInputClearly(text: String, message: String) {
        let error = #expect(throws: PayloadError.self) { try Payload(json: Data(text.utf8)) }
        #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "no error")")
    }

    @Test func readsSimulatorFiles() throws {
        let text = #"{"Simulator Target Bundle":"com.soarstarter.SoarStarterSwift","aps":{"alert":"Hi"},"deeplink":"soar:///notifications"}"#
        let file = try SimulatorFile(data: Data(text.utf8))
        #expect(file.targetBundle == "com.soarstarter.SoarStarterSwift")
        #expect(file.payload.custom.keys.sorted() == ["deeplink"])
        #expect(PushRoute.from(file.payload) == .notifications)
        #expect(throws: PayloadError.self) { try SimulatorFile(data: Data(#"{"Simulator Target Bundle":1,"aps":{}}"#.utf8)) }
    }
}

@Suite(.timeLimit(.minutes(5))) struct PushTypeTests {
    @Test func topicSuffixes() {
        let bundle = "com.soarstarter.App"
        let expected: [PushType: String] = [
            .alert: bundle, .background: bundle, .location: bundle + ".location-query", .voip: bundle + ".voip",
            .complication: bundle + ".complication", .fileprovider: bundle + ".pushkit.fileprovider",
            .mdm: bundle, .liveactivity: bundle + ".push-type.liveactivity", .pushtotalk: bundle + ".voip-ptt",
            .widgets: bundle + ".push-type.widgets", .controls: bundle + ".push-type.controls",
        ]
        #expect(Set(expected.keys) == Set(PushType.all))
        for (type, topic) in expected { #expect(type.topic(forBundleID: bundle) == topic) }
        #expect(PushType.voip.topic(forBundleID: bundle + ".voip") == bundle + ".voip")
    }

    @Test func unknownTypesAreKeptNotLost() {
        #expect(PushType(rawValue: "voip") == .voip)
        let future = PushType(rawValue: "hologram")
        #expect(!future.isKnown && future.rawValue == "hologram")
    }
}
