import Foundation
import Testing

@testable import SoarStorage

@Suite(.timeLimit(.minutes(1))) struct MultipartReaderTests {
    static let form = Array(
        ("--XyZ\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
            + "PNG\r\n--Xy bytes that look like a boundary\r\n--XyZ--\r\n").utf8)

    /// Fed in pieces of every size from 1 byte up: the same parts and bytes come out.
    @Test func partsAndBytesWhateverTheChunking() throws {
        for size in [1, 2, 3, 7, 16, 64, Self.form.count] {
            var reader = try #require(MultipartReader(contentType: "multipart/form-data; boundary=XyZ"))
            var parts: [[String: String]] = []
            var bytes: [[UInt8]] = []
            var start = 0
            while start < Self.form.count {
                let chunk = Array(Self.form[start..<min(start + size, Self.form.count)])
                try chunk.withUnsafeBytes { raw in
                    try reader.feed(raw) { event in
                        switch event {
                        case .part(let headers):
                            parts.append(headers)
                            bytes.append([])
                        case .bytes(let piece): bytes[bytes.count - 1] += piece
                        }
                    }
                }
                start += size
            }
            #expect(reader.finished, "chunks of \(size)")
            #expect(parts.map { MultipartReader.disposition($0).name } == ["cacheControl", "file"])
            #expect(parts.last?["content-type"] == "image/png")
            #expect(bytes.map { String(decoding: $0, as: UTF8.self) } == ["3600", "PNG\r\n--Xy bytes that look like a boundary"], "chunks of \(size)")
        }
    }

    @Test func aPartWithoutHeadersAndAFileNamedTheOtherWay() throws {
        var reader = try #require(MultipartReader(contentType: "multipart/form-data; boundary=b"))
        let form = Array("--b\r\n\r\nbare\r\n--b\r\nContent-Disposition: form-data; name=\"f\"; filename*=UTF-8''a.png\r\n\r\nPNG\r\n--b--".utf8)
        var parts: [[String: String]] = []
        var bytes: [String] = []
        try form.withUnsafeBytes { raw in
            try reader.feed(raw) { event in
                switch event {
                case .part(let headers):
                    parts.append(headers)
                    bytes.append("")
                case .bytes(let piece): bytes[bytes.count - 1] += String(decoding: piece, as: UTF8.self)
                }
            }
        }
        #expect(reader.finished && bytes == ["bare", "PNG"])
        #expect(parts.first == [:] && MultipartReader.disposition(parts[1]).fileName == "UTF-8''a.png")
    }

    @Test func refusesWhatIsNotAForm() {
        #expect(MultipartReader(contentType: "application/json") == nil)
        #expect(MultipartReader(contentType: "multipart/form-data") == nil)
        #expect(MultipartReader(contentType: "multipart/form-data; boundary=\"q\"") != nil)
    }
}
