import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Foundation's decoder reads JSON in UTF-16 and UTF-32 too; the one strict reader reads bytes as UTF-8. A document in
/// another encoding is refused outright by the gate every server's JSON passes (`ServerJSON`; RFC 8259 §8.1), so a
/// member given twice cannot slip past the check and be read one way by the check and another by its use.
@Suite struct ServerJSONGateTests {
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
        #expect(RepeatedNamesOracle.firstRepeated(in: [UInt8](bytes)) != "issuer", "a byte scan cannot see the repeat in \(name)")
        #expect(ServerJSON.disagreement(in: [UInt8](bytes)) == .notUTF8)
        #expect(throws: ServerJSON.Refusal.notUTF8) { try ServerJSON.object(bytes) }
    }

    @Test func utf8TextIsReadForRepeats() {
        #expect(ServerJSON.disagreement(in: Array(Self.repeatedIssuer.utf8)) == .repeated("issuer"))
        #expect(ServerJSON.disagreement(in: Array(#"{"a":"caf\u00e9","b":"é"}"#.utf8)) == nil)
        #expect(ServerJSON.disagreement(in: [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]) == .notUTF8, "invalid UTF-8")
        // Text that is not JSON is no disagreement: the caller's own reading refuses it in its own words.
        #expect(ServerJSON.disagreement(in: Array(#"{"a":1,"a":2"#.utf8)) == nil)
        #expect(throws: ServerJSON.Refusal.notJSON) { try ServerJSON.object(Data(#"{"a":1,"a":2"#.utf8)) }
        #expect(throws: ServerJSON.Refusal.notJSON) { try ServerJSON.object(Data("[1]".utf8)) }
        // Repeats at any depth, names compared decoded, and nesting past the bound.
        #expect(throws: ServerJSON.Refusal.repeated("active")) { try ServerJSON.object(Data(#"{"x":{"active":true,"\u0061ctive":false}}"#.utf8)) }
        let deep = String(repeating: "[", count: ServerJSON.maximumDepth + 1) + String(repeating: "]", count: ServerJSON.maximumDepth + 1)
        #expect(throws: ServerJSON.Refusal.tooDeep) { try ServerJSON.value(Data(deep.utf8)) }
        let deepest = String(repeating: "[", count: ServerJSON.maximumDepth) + String(repeating: "]", count: ServerJSON.maximumDepth)
        #expect(throws: Never.self) { try ServerJSON.value(Data(deepest.utf8)) }
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
