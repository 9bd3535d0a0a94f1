import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Foundation's decoder reads JSON in UTF-16 and UTF-32 too; the scan for repeated members reads bytes as UTF-8. A
/// document in another encoding is refused outright (RFC 8259 §8.1), so a member given twice cannot slip past the scan
/// and be read one way by the check and another by its use.
@Suite struct JSONMemberNamesEncodingTests {
    static let repeatedIssuer = #"{"issuer":"https://evil.example.com","issuer":"https://sso.example.com/realms/ops","token_endpoint":"https://sso.example.com/t"}"#

    static let encodings: [(String, String.Encoding)] = [
        ("UTF-16BE", .utf16BigEndian), ("UTF-16LE", .utf16LittleEndian), ("UTF-16 with a BOM", .utf16),
        ("UTF-32BE", .utf32BigEndian), ("UTF-32LE", .utf32LittleEndian),
    ]

    @Test(arguments: encodings.map(\.0))
    func textInAnotherEncodingIsRefusedThoughFoundationReadsIt(_ name: String) throws {
        let encoding = try #require(Self.encodings.first { $0.0 == name }).1
        let bytes = try #require(Self.repeatedIssuer.data(using: encoding))
        // The threat: the decoder reads it, one `issuer` winning.
        let decoded = try JSONDecoder().decode([String: String].self, from: bytes)
        #expect(decoded["issuer"] != nil)
        #expect(JSONMemberNames.firstRepeated(in: [UInt8](bytes)) != "issuer", "the byte scan cannot see the repeat in \(name)")
        #expect(JSONMemberNames.disagreement(in: [UInt8](bytes)) == .notUTF8)
    }

    @Test func utf8TextIsScannedForRepeats() {
        #expect(JSONMemberNames.disagreement(in: Array(Self.repeatedIssuer.utf8)) == .repeated("issuer"))
        #expect(JSONMemberNames.disagreement(in: Array(#"{"a":"caf\u00e9","b":"é"}"#.utf8)) == nil)
        #expect(JSONMemberNames.disagreement(in: [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]) == .notUTF8, "invalid UTF-8")
    }

    /// `oauthflow providers add` reads the server's metadata: a UTF-16 document is refused with a sentence.
    @Test func aDraftRefusesMetadataInUTF16() async throws {
        let bytes = try #require(Self.repeatedIssuer.data(using: .utf16LittleEndian))
        let transport = ScriptedTransport { request, _ in
            guard request.url.path.hasSuffix("/openid-configuration") else { return TransportResponse(status: 404) }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: bytes)
        }
        let error = try await #require(throws: DiscoveryError.self) {
            try await DescriptorDraft.read(issuer: "https://sso.example.com/realms/ops", environment: OAuthEnvironment(transport: transport))
        }
        #expect(error.message.contains("is not UTF-8 JSON"), "\(error.message)")
    }
}
