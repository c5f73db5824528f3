import Foundation
import SoarCore
import Testing

@testable import SoarClient

@Suite(.timeLimit(.minutes(1))) struct PKCETests {
    @Test func theChallengeIsRFC7636sForItsExample() {
        #expect(PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func verifiersAreLongEnoughAndNeverRepeat() {
        let verifiers = (0..<100).map { _ in PKCE().verifier }
        #expect(Set(verifiers).count == 100)
        #expect(verifiers.allSatisfy { $0.count == 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
    }

    @Test func anAccessTokensClaimsAreRead() {
        let payload = PKCE.base64URL(Data(#"{"aal":"aal2","sub":"x"}"#.utf8))
        #expect(SoarAuthClient.claims(of: "e30.\(payload).sig")["aal"] == .string("aal2"))
        #expect(SoarAuthClient.claims(of: "not-a-token").isEmpty)
    }
}
