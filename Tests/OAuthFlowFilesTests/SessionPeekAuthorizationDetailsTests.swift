import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

/// A session holding rich authorization details (RFC 9396: arrays and objects nested in the tokens) is still read by
/// the launcher's strict reader, which answers `token print` without Foundation.
@Suite final class SessionPeekAuthorizationDetailsTests {
    let directory: TemporaryDirectory
    let store: FileTokenStore

    init() throws {
        directory = try TemporaryDirectory()
        store = FileTokenStore(directory: directory.url.appendingPathComponent("oauthflow"))
    }

    deinit { directory.cleanUp() }

    @Test func theAccessTokenIsReadBesideTheDetails() async throws {
        var tokens = TokenSet(
            accessToken: Secret("tok_rar"), tokenType: "bearer", expiresAt: Date().addingTimeInterval(3600), refreshToken: nil, idToken: nil,
            scopes: [], issuedAt: Date())
        tokens.authorizationDetails = [
            AuthorizationDetail(
                type: "payment_initiation",
                ["instructedAmount": .object(["currency": .string("EUR"), "amount": .string("1.00")]), "actions": .array([.string("initiate")])])
        ]
        try await store.save(
            StoredSession(key: SessionKey(providerID: "bank"), variables: [:], clientID: "app", redirectURI: nil, tokens: tokens, updatedAt: Date()))
        #expect(SessionPeek.read(providerID: "bank", account: "default", directory: store.directory.path)?.accessToken == "tok_rar")
        let loaded = try await store.load(SessionKey(providerID: "bank"))
        #expect(loaded?.tokens.authorizationDetails == tokens.authorizationDetails)
    }
}
