import Foundation
import OAuthFlow
import Testing

@testable import oauthflow

/// What the CLI prints for machines. JSON: every character a terminal would act on is a JSON escape, and a real
/// parser reads back exactly the value that was encoded.
@Suite struct CLIOutputTests {
    @Test(arguments: ["\u{9B}31m", "a\u{1B}[2Jb", "\u{7F}", "\u{202E}evil", "\u{2028}", "tag\u{E0041}", "plain é §", "\u{AD}"])
    func invisiblesAreJSONEscapesAndReadBackExactly(value: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = JSONText.escapingInvisibles(String(decoding: try encoder.encode(["claim": value]), as: UTF8.self))
        #expect(!json.unicodeScalars.contains { $0 != "\n" && TerminalText.needsEscape($0) }, "\(json.debugDescription)")
        #expect(!json.contains("\\x"), "\\x is no JSON escape")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(parsed?["claim"] == value)
    }

    /// Field by field against client.authentication.k8s.io/v1 ExecCredential.
    @Test func execCredentialHasTheV1Shape() throws {
        let credential = ExecCredential(token: Secret("id.token.here"), expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(credential)) as? [String: Any])
        #expect(Set(object.keys) == ["apiVersion", "kind", "status"])
        #expect(object["apiVersion"] as? String == "client.authentication.k8s.io/v1")
        #expect(object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        #expect(Set(status.keys) == ["token", "expirationTimestamp"])
        #expect(status["token"] as? String == "id.token.here")
        #expect(status["expirationTimestamp"] as? String == "2033-05-18T03:33:20Z")
    }
}

/// The CLI's log lines (`--verbose`) escape what a server may have written, in the message, every metadata value (nested
/// too) and an error's description.
@Suite struct TerminalLogHandlerTests {
    @Test func everyStringOfALogLineIsEscaped() {
        let hostile = "a\nFORGED\u{1B}[31m\u{07}"
        let value = TerminalLogHandler.escaped(
            .dictionary(["list": .array([.string(hostile)]), "text": .string(hostile), "any": .stringConvertible(hostile)]))
        let printed = "\(value)"
        #expect(printed.contains("FORGED") && !printed.contains("\n") && !printed.contains("\u{1B}") && !printed.contains("\u{07}"), "\(printed)")
    }
}
