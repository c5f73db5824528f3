import Foundation
import SoarTesting
import Testing

/// `soar apns-emulator` and `soar keys generate` as a user runs them.
@Suite(.timeLimit(.minutes(5))) struct EmulatorCommandTests {
    @Test(.ownThread) func keysGenerateThenEmulatorTrustsThatKeyAndLogsDeliveries() throws {
        let dir = TemporaryDirectory("soar-e2e")
        let keys = try ProcessRunner.run(SoarBinary.path, ["keys", "generate", "--out", dir.path, "--key-id", "ABCDE12345", "--team-id", "TEAMTEAM01"])
        #expect(keys.status == 0, "\(keys.stderr)")
        #expect(keys.stdout.contains("APNS_KEY_ID=ABCDE12345"))
        let again = try ProcessRunner.run(SoarBinary.path, ["keys", "generate", "--out", dir.path, "--key-id", "ABCDE12345"])
        #expect(again.status == 2 && again.stderr.contains("exists; pass --force"))

        let emulator = try BackgroundProcess(SoarBinary.path, [
            "apns-emulator", "--port", "0", "--control-port", "0", "--dir", dir.path + "/emu",
            "--key-id", "ABCDE12345", "--team-id", "TEAMTEAM01", "--public-key", dir.path + "/AuthKey_ABCDE12345.pub.pem",
        ])
        let url = try #require(emulator.readLine()?.replacingOccurrences(of: "APNs emulator: ", with: ""), "\(emulator.standardError)")
        let ca = try #require(emulator.readLine()?.replacingOccurrences(of: "CA file: ", with: ""))
        let control = try #require(emulator.readLine()?.replacingOccurrences(of: "control: ", with: ""))
        #expect(url.hasPrefix("https://127.0.0.1:") && FileManager.default.fileExists(atPath: ca) && control.hasPrefix("http://127.0.0.1:"))

        let token = try ProcessRunner.run("python3", ["-c", """
            import jwt, time
            print(jwt.encode({"iss": "TEAMTEAM01", "iat": int(time.time())}, open("\(dir.path)/AuthKey_ABCDE12345.p8").read(), algorithm="ES256", headers={"kid": "ABCDE12345"}))
            """]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let sent = try ProcessRunner.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2", "--cacert", ca, "-H", "authorization: bearer \(token)", "-H", "apns-topic: com.example", "-d", #"{"aps":{"alert":"hi"},"deeplink":"soar:///notifications"}"#, url + "/3/device/00aa"])
        #expect(sent.stdout == "200")
        let line = try #require(emulator.readLine())
        let delivery = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(delivery?["token"] as? String == "00aa")
        #expect((delivery?["payload"] as? [String: Any])?["deeplink"] as? String == "soar:///notifications")
        let stats = try ProcessRunner.run("curl", ["-s", control + "/stats"])
        #expect(stats.stdout.contains("\"accepted\":1"))
        #expect(emulator.stop() == 0)
    }

    @Test(.ownThread) func withoutKeysItMakesAndPrintsADevelopmentKey() throws {
        let dir = TemporaryDirectory("soar-e2e")
        let emulator = try BackgroundProcess(SoarBinary.path, ["apns-emulator", "--port", "0", "--control-port", "0", "--dir", dir.path, "--quiet"])
        #expect(emulator.readLine()?.hasPrefix("APNs emulator: https://") == true)
        #expect(emulator.stop() == 0)
        #expect(emulator.standardError.contains("APNS_TEAM_ID=SOARDEV001 APNS_KEY_ID=SOARKEY001"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/AuthKey_SOARKEY001.p8"))
    }

    @Test(.ownThread) func twoEmulatorsOnFreePortsBothStartWithoutNamingAControlPort() throws {
        let (firstDirectory, secondDirectory) = (TemporaryDirectory(), TemporaryDirectory())
        let first = try BackgroundProcess(SoarBinary.path, ["apns-emulator", "--port", "0", "--dir", firstDirectory.path, "--quiet"])
        let second = try BackgroundProcess(SoarBinary.path, ["apns-emulator", "--port", "0", "--dir", secondDirectory.path, "--quiet"])
        #expect(first.readLine()?.hasPrefix("APNs emulator: https://") == true, "\(first.standardError)")
        #expect(second.readLine()?.hasPrefix("APNs emulator: https://") == true, "\(second.standardError)")
        #expect(first.stop() == 0 && second.stop() == 0)
        withExtendedLifetime((firstDirectory, secondDirectory)) {}
    }

    @Test(.ownThread) func aCommandGroupWithoutItsSubcommandListsThem() throws {
        let push = try ProcessRunner.run(SoarBinary.path, ["push"])
        #expect(push.status == 2 && push.stderr.contains("push send") && !push.stderr.contains("unknown command"), "\(push.stderr)")
        let keys = try ProcessRunner.run(SoarBinary.path, ["keys", "--help"])
        #expect(keys.status == 0 && keys.stdout.contains("keys generate"))
        let payload = try ProcessRunner.run(SoarBinary.path, ["payload", "frobnicate"])
        #expect(payload.status == 2 && payload.stderr.contains("unknown command 'payload frobnicate'") && payload.stderr.contains("payload validate"))
    }

    @Test(.ownThread) func badConfigurationExitsTwoWithAReason() throws {
        let directory = TemporaryDirectory()
        let taken = try BackgroundProcess(SoarBinary.path, ["apns-emulator", "--port", "0", "--control-port", "0", "--dir", directory.path])
        let port = try #require(taken.readLine()?.split(separator: ":").last.map(String.init))
        let clash = try ProcessRunner.run(SoarBinary.path, ["apns-emulator", "--port", port, "--control-port", "0", "--dir", directory.path])
        #expect(clash.status == 2 && clash.stderr.contains("cannot listen"), "\(clash.stderr)")
        let mismatch = try ProcessRunner.run(SoarBinary.path, ["apns-emulator", "--key-id", "A"])
        #expect(mismatch.status == 2 && mismatch.stderr.contains("give each --key-id a --team-id and a --public-key"))
        let status = try ProcessRunner.run(SoarBinary.path, ["apns-emulator", "--fail-status", "404"])
        #expect(status.status == 2)
        taken.stop()
        withExtendedLifetime(directory) {}
    }
}
