import Foundation
import SoarImages
import Testing

@Suite(.timeLimit(.minutes(1))) struct ImageRendererTests {
    /// A 1 × 1 red PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!

    @Test func rendersRunWithoutRunTimeCompiledCode() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("soar-render-\(UUID().uuidString).png")
        try Self.png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let webp = try ImageRenderer().render(file.path, width: 1, height: 1, fit: .cover, encoding: .webp, quality: 80)
        #expect(webp.prefix(4) == Data("RIFF".utf8))
        // Debian 12's liborc frees compiled code without its lock: renders side by side race.
        #expect(ImageRenderer.compilesCode == false)
    }

    @Test func anImageOverTheByteLimitIsRefusedUnread() throws {
        #expect(ImageRenderer().limits.maxBytes == 25_000_000, "Supabase's 25 MB")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("soar-render-\(UUID().uuidString).png")
        try Self.png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var limits = ImageRenderer.Limits()
        limits.maxBytes = Int64(Self.png.count - 1)
        #expect {
            try ImageRenderer(limits: limits).render(file.path, width: 1, height: 1, fit: .cover, encoding: .jpeg, quality: 80)
        } throws: { error in
            (error as? ImageRenderer.Failure).map { $0.tooLarge && $0.reason.contains("over") } ?? false
        }
    }
}
