import SoarCrypto

/// A provider key the emulator trusts: the team it belongs to, its key id, and its public key.
public struct RegisteredKey: Sendable {
    public let teamID: String
    public let keyID: String
    public let publicKey: P256Key

    public init(teamID: String, keyID: String, publicKey: P256Key) {
        self.teamID = teamID
        self.keyID = keyID
        self.publicKey = publicKey
    }
}
