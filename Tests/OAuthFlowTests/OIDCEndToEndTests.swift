import Foundation
import Testing
@testable import OAuthFlow

/// Discovery and ID token validation against Django OAuth Toolkit (RS256).
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct OIDCEndToEndTests {
    typealias Server = TestAuthorizationServer

    @Test func discoveryMatchesTheDescriptor() async throws {
        let server = try Server.require()
        let provider = try server.provider()
        let metadata = try await DiscoveryClient().metadata(for: provider)
        #expect(metadata.issuer == provider.issuer?.absoluteString)
        #expect(metadata.jwksURI == provider.endpoints.jwks)
        #expect(metadata.tokenEndpoint == provider.endpoints.token)
        #expect(metadata.idTokenSigningAlgValuesSupported?.contains("RS256") == true)
    }

    @Test func issuerMustMatchExactlyTrailingSlashIncluded() async throws {
        let server = try Server.require()
        let provider = try server.provider { $0.issuer = "http://127.0.0.1:{port}/o/" }
        let error = try await #require(throws: IDTokenError.self) { try await DiscoveryClient().metadata(for: provider) }
        #expect(error.code == .discoveryIssuerMismatch)
    }

    @Test func idTokensAreVerifiedOnSignInAndRefreshWithKeysFromDiscovery() async throws {
        let server = try Server.require()
        // No static JWKS endpoint: the client discovers it.
        let provider = try server.provider { $0.endpoints.jwks = nil }
        #expect(provider.endpoints.jwks == nil)
        let transport = RecordingTransport()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI), transport: transport)
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishAuthorization(callback: try server.signIn(pending.url), pending: pending)
        let idToken = try #require(tokens.idToken)
        let (header, claims) = try IDTokenValidator.decodeUnverified(idToken.value)
        #expect(header["alg"]?.stringValue == "RS256")
        #expect(claims["nonce"]?.stringValue == pending.nonce?.value)
        let urls = transport.requests.map(\.url.absoluteString)
        #expect(urls.contains { $0.hasSuffix("/.well-known/openid-configuration") })
        #expect(urls.contains { $0.hasSuffix("/.well-known/jwks.json") })

        // DOT issues a new ID token on refresh, without a nonce; it is verified too.
        let refreshed = try await client.refresh(tokens)
        let newIDToken = try #require(refreshed.idToken)
        #expect(newIDToken != idToken)
        #expect(try IDTokenValidator.decodeUnverified(newIDToken.value).claims["nonce"] == nil)
        #expect(try await client.userInfo(refreshed)["sub"] == claims["sub"])
    }

    @Test func aTokenForAnotherClientIsRefused() async throws {
        let server = try Server.require()
        let provider = try server.provider()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI))
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishAuthorization(callback: try server.signIn(pending.url), pending: pending)
        let strict = IDTokenValidator(provider: provider, clientID: Server.confidentialClientID)
        let error = try await #require(throws: IDTokenError.self) {
            try await strict.validate(try #require(tokens.idToken), nonce: pending.nonce, accessToken: tokens.accessToken)
        }
        #expect(error.code == .audienceMismatch)
    }
}
