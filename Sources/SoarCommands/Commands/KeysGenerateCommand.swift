import Foundation
import SoarCore
import SoarCrypto
import SoarEmulator

/// `soar keys generate`: a development APNs auth key (.p8) and its public key, for the emulator.
struct KeysGenerateCommand: Command {
    static let name = "keys generate"
    static let summary = "Write a development APNs auth key (.p8) and its public key, and print the ids to use."
    static let options = [
        Option("--out", value: "DIR", help: "Where to write the files (default: the current directory)."),
        Option("--key-id", value: "ID", help: "The key id (default: 10 random characters)."),
        Option("--team-id", value: "ID", help: "The team id (default: \(DevelopmentKey.teamID))."),
        Option("--force", help: "Overwrite existing files."),
    ]
    static let discussion = """
        The emulator trusts the key when started with the printed --key-id, --team-id and --public-key.
        Apple's real keys come from the developer portal; this one only works with the emulator.
        """

    let directory: String
    let keyID: String
    let teamID: String
    let force: Bool

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        directory = arguments.value("--out") ?? "."
        if let given = arguments.value("--key-id") { keyID = given } else { keyID = try Self.randomID() }
        teamID = arguments.value("--team-id") ?? DevelopmentKey.teamID
        force = arguments.flag("--force")
    }

    func validate() throws(CommandError) {
        for (name, id) in [("--key-id", keyID), ("--team-id", teamID)] {
            guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber }) else { throw .usage("\(name) must be letters and digits") }
        }
    }

    func run(_ console: Console) async throws(CommandError) {
        let privatePath = "\(directory)/AuthKey_\(keyID).p8"
        let publicPath = "\(directory)/AuthKey_\(keyID).pub.pem"
        let fm = FileManager.default
        if !force, let existing = [privatePath, publicPath].first(where: fm.fileExists(atPath:)) {
            throw .usage("\(existing) exists; pass --force to overwrite it")
        }
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let key = try P256Key.generate()
            try DevelopmentKey.write(key, to: privatePath)
            try key.publicPEM().write(toFile: publicPath, atomically: true, encoding: .utf8)
        } catch {
            throw .failure("cannot write the key files in \(directory): \(ErrorText.describe(error))")
        }
        console.print("private key: \(privatePath)")
        console.print("public key: \(publicPath)")
        console.print("APNS_KEY_ID=\(keyID)")
        console.print("APNS_TEAM_ID=\(teamID)")
        console.print("APNS_PRIVATE_KEY_FILE=\(privatePath)")
        console.print("emulator: soar apns-emulator --key-id \(keyID) --team-id \(teamID) --public-key \(publicPath)")
    }

    static func randomID() throws(CommandError) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        do {
            return String(try randomBytes(10).map { alphabet[Int($0) % alphabet.count] })
        } catch {
            throw .configuration(error.description)
        }
    }
}
