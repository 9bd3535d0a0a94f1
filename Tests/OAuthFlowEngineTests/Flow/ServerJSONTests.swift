import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// Every JSON answer a server sends is read by one reader (``ServerJSON``), which refuses text two readers could read
/// differently: a member given twice, the second through an escape (RFC 8259 §4), and text that is not UTF-8 (§8.1).
/// Foundation's decoder, which read these answers before, took the first of two members and read UTF-16.
@Suite struct ServerJSONTests {
    static func response(_ text: String, encoding: String.Encoding = .utf8) throws -> TransportResponse {
        TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try #require(text.data(using: encoding)))
    }

    @Test(arguments: [
        (#"{"access_token":"at-1","token_type":"Bearer","\u0061ccess_token":"at-2"}"#, String.Encoding.utf8),
        (#"{"access_token":"at-1","token_type":"Bearer","scope":"a","sc\u006fpe":"a b"}"#, .utf8),
        (#"{"access_token":"at-1","token_type":"Bearer"}"#, .utf16LittleEndian),
        (#"{"access_token":"at-1","token_type":"Bearer"}"#, .utf16),
    ])
    func aTokenAnswerGivingAMemberTwiceOrNotInUTF8IsRefused(_ text: String, _ encoding: String.Encoding) throws {
        let response = try Self.response(text, encoding: encoding)
        let error = #expect(throws: FlowError.self) {
            _ = try TokenResponseParser.tokenSet(
                from: response, format: .json, separator: " ", requestedScopes: [], previous: nil, now: Date())
        }
        #expect(error?.code == .invalidTokenResponse)
        // The same answer, once and in UTF-8, is read.
        let plain = try Self.response(#"{"access_token":"at-1","token_type":"Bearer"}"#)
        let tokens = try TokenResponseParser.tokenSet(from: plain, format: .json, separator: " ", requestedScopes: [], previous: nil, now: Date())
        #expect(tokens.accessToken.value == "at-1")
    }

    /// A token answer's ID token with control characters is refused before anything is stored: stored, it made a session
    /// no reader took, which `token print`, `call` and `logout` then refused, its refresh token never revoked.
    @Test(arguments: ["access_token", "refresh_token", "id_token"])
    func aTokenAnswerWithATokenThatIsNotPrintableASCIIIsRefused(_ member: String) throws {
        var members = ["access_token": "at-1", "refresh_token": "rt-1", "id_token": "a.b.c"]
        members[member] = #"x\u001b]0;title\u0007\ny"#   // JSON escapes: ESC, BEL and a line break once read
        let text = "{" + members.sorted { $0.key < $1.key }.map { #""\#($0.key)":"\#($0.value)""# }.joined(separator: ",") + #","token_type":"Bearer"}"#
        let error = #expect(throws: FlowError.self) {
            _ = try TokenResponseParser.tokenSet(
                from: try Self.response(text), format: .json, separator: " ", requestedScopes: [], previous: nil, now: Date())
        }
        #expect(error?.code == .invalidTokenResponse && error?.message.contains("`\(member)`") == true, "\(String(describing: error))")
    }

    @Test func anErrorAnswerGivingAMemberTwiceNamesNoServerError() throws {
        let response = try Self.response(#"{"error":"invalid_grant","\u0065rror":"temporarily_unavailable"}"#)
        #expect((try? TokenResponseParser.fields(of: response, format: .auto)) == nil)
    }

    @Test(arguments: [
        (#"{"sub":"user-1","s\u0075b":"user-2"}"#, String.Encoding.utf8), (#"{"sub":"user-1","email":"a@example.com"}"#, .utf16BigEndian),
    ])
    func aUserinfoAnswerGivingAMemberTwiceOrNotInUTF8IsRefused(_ text: String, _ encoding: String.Encoding) async throws {
        let body = try #require(text.data(using: encoding))
        let provider = try TestDescriptor().with(endpoints: [("userinfo", "https://api.example.com/me")]).descriptor().resolve([:])
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: body) }
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app-9", redirectURI: URL(string: "http://127.0.0.1/callback")!),
            environment: OAuthEnvironment(transport: transport))
        let tokens = TokenSet(
            accessToken: Secret("at-1"), tokenType: "Bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date())
        let error = await #expect(throws: FlowError.self) { _ = try await client.userInfo(tokens) }
        #expect(error?.code == .invalidUserInfo)
    }
}
