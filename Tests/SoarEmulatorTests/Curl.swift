import Foundation
import SoarTesting

/// One HTTP/2 answer as curl saw it.
struct CurlAnswer {
    var status: Int
    var headers: [String: String]
    var body: String
    var reason: String? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["reason"] as? String
    }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
}

/// Drives `curl --http2` against an emulator fixture: a real client the project did not write.
struct Curl {
    let fixture: EmulatorFixture

    static let token = "a1" + String(repeating: "b2", count: 31)

    /// Sends one request; `auth` adds a valid provider token unless headers carry their own.
    func send(
        method: String = "POST", path: String = "/3/device/\(Curl.token)", headers: [String: String] = [:],
        extraHeaders: [String] = [], body: String? = #"{"aps":{"alert":"hello"}}"#, auth: Bool = true,
        topic: String? = EmulatorFixture.topic, curlOptions: [String] = []
    ) throws -> CurlAnswer {
        var arguments = ["-s", "-i", "--http2", "--cacert", fixture.caFile, "-X", method] + curlOptions
        var all = headers
        if auth, all["authorization"] == nil { all["authorization"] = "bearer " + (try fixture.providerToken()) }
        if let topic, all["apns-topic"] == nil { all["apns-topic"] = topic }
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        for header in extraHeaders { arguments += ["-H", header] }
        if body != nil { arguments += ["--data-binary", "@-"] }
        arguments.append(fixture.url + path)
        let result = try ProcessRunner.run("curl", arguments, input: body.map { Data($0.utf8) })
        return try Self.parse(result)
    }

    /// Reads the last response of `curl -i` output.
    static func parse(_ result: ProcessResult) throws -> CurlAnswer {
        guard result.status == 0 else { throw CurlFailure(status: result.status, stderr: result.stderr) }
        let blocks = result.stdout.components(separatedBy: "\r\n\r\n")
        var answers: [CurlAnswer] = []
        var index = 0
        while index < blocks.count {
            let lines = blocks[index].components(separatedBy: "\r\n")
            guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/") else { index += 1; continue }
            let status = Int(statusLine.split(separator: " ")[1]) ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let body = index + 1 < blocks.count && !blocks[index + 1].hasPrefix("HTTP/") ? blocks[index + 1] : ""
            answers.append(CurlAnswer(status: status, headers: headers, body: body))
            index += body.isEmpty ? 1 : 2
        }
        guard let last = answers.last else { throw CurlFailure(status: 0, stderr: "no HTTP answer in: \(result.stdout)") }
        return last
    }
}

struct CurlFailure: Error, CustomStringConvertible {
    let status: Int32
    let stderr: String
    var description: String { "curl exited \(status): \(stderr)" }
}
