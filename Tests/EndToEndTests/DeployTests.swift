import Foundation
import SoarTesting
import Testing

/// What deploy/ ships, checked as systemd would read it, and logs as the journal takes them.
@Suite(.timeLimit(.minutes(5))) struct DeployTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../deploy").standardized.path

    @Test(.ownThread) func theServiceUnitIsOneSystemdAccepts() throws {
        let dir = TemporaryDirectory("soar-deploy")
        // systemd checks that the program exists: point the unit at the built one.
        let unit = try String(contentsOfFile: Self.deploy + "/soar.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/soar", with: SoarBinary.path)
        try unit.write(toFile: dir.path + "/soar.service", atomically: true, encoding: .utf8)
        let verified = try ProcessRunner.run("systemd-analyze", ["verify", dir.path + "/soar.service"])
        #expect(verified.status == 0 && verified.stderr.isEmpty, "\(verified.stderr)")
        // Every variable the command line uses is set by the environment file.
        let environment = try String(contentsOfFile: Self.deploy + "/soar.env", encoding: .utf8)
        for name in ["SOAR_HOST", "SOAR_PORT", "SOAR_OPTIONS"] {
            #expect(unit.contains(name) && environment.contains("\n\(name)="), "\(name)")
        }
        #expect(unit.contains("DynamicUser=yes") && unit.contains("StateDirectory=soar") && unit.contains("--db /var/lib/soar/soar.db"))
    }

    @Test(.ownThread) func underTheJournalEachLineCarriesItsPriority() throws {
        let dir = TemporaryDirectory("soar-deploy")
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"], environment: ["JOURNAL_STREAM": "8:12345"])
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""))
        _ = try ProcessRunner.run("curl", ["-s", url + "/rest/v1/nothing"])
        #expect(server.stop() == 0)
        let lines = server.standardError.split(separator: "\n").filter { $0.contains(#""msg""#) }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("<6>{") || $0.hasPrefix("<4>{") || $0.hasPrefix("<3>{") }, "\(lines)")
    }
}
