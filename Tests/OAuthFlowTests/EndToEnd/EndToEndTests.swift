import Foundation
import Logging
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// The engine against Django OAuth Toolkit, a real, independent authorization server.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct EndToEndTests {
    typealias Server = TestAuthorizationServer

    private func client(_ provider: Provider, clientID: String = Server.publicClientID, secret: Secret? = nil,
                        transport: any HTTPTransport = DefaultHTTPTransport(timeout: 15)) -> OAuthClient {
        OAuthClient(provider: provider,
                    configuration: ClientConfiguration(clientID: clientID, redirectURI: Server.redirectURI, clientSecret: secret), environment: OAuthEnvironment(transport: transport))
    }

    /// Runs the browser part and the token exchange.
    private func signIn(_ client: OAuthClient, server: Server) async throws -> (PendingAuthorization, URL, TokenSet) {
        let pending = try await client.startAuthorization()
        let callback = try await server.signIn(pending.url)
        let tokens = try await client.finishSignIn(.callback(callback), pending: pending).tokens
        return (pending, callback, tokens)
    }

    @Test func fullFlowWithFormBodiesRefreshUserinfoAndRevocation() async throws {
        let server = try Server.require()
        let provider = try server.provider()
        let client = client(provider)
        let (_, callback, tokens) = try await signIn(client, server: server)
        #expect(callback.absoluteString.hasPrefix(Server.redirectURI.absoluteString + "?"))
        #expect(tokens.tokenType == "bearer")
        #expect(tokens.refreshToken != nil)
        #expect(tokens.idToken != nil)
        #expect(Set(tokens.scopes) == ["openid", "profile", "email", "read"])
        #expect(tokens.expiresAt != nil)
        #expect(provider.resources.resources(granted: tokens.scopes).map(\.title) == ["Userinfo"])

        let claims = try await client.userInfo(tokens)
        #expect(claims["sub"]?.stringValue?.isEmpty == false)
        #expect(claims["email"]?.stringValue == "alice@example.com")

        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.accessToken != tokens.accessToken)
        #expect(refreshed.refreshToken != nil)
        #expect(refreshed.refreshToken != tokens.refreshToken, "DOT rotates refresh tokens")
        #expect(try await client.userInfo(refreshed)["sub"] == claims["sub"])

        try await client.revoke(refreshed.accessToken, kind: .accessToken)
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.userInfo(refreshed) }
        #expect(error.httpStatus == 401)
    }

    @Test func jsonTokenBodies() async throws {
        let server = try Server.require()
        let transport = RecordingTransport()
        let client = client(try server.provider { $0.tokenRequest.bodyEncoding = .json }, transport: transport)
        let (_, _, tokens) = try await signIn(client, server: server)
        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.refreshToken != tokens.refreshToken)
        let tokenRequests = transport.requests.filter { $0.url.absoluteString.hasSuffix("/o/token/") }
        #expect(tokenRequests.count == 2)
        for request in tokenRequests {
            #expect(request.headers["Content-Type"] == "application/json")
            let body = try #require(try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: String])
            #expect(body["client_id"] == Server.publicClientID)
        }
    }

    @Test(arguments: [ProviderDescriptor.ClientAuthMethod.clientSecretBasic, .clientSecretPost])
    func confidentialClient(_ method: ProviderDescriptor.ClientAuthMethod) async throws {
        let server = try Server.require()
        let transport = RecordingTransport()
        let client = client(try server.provider { $0.clientAuth.methods = [method] }, clientID: Server.confidentialClientID,
                            secret: Server.confidentialSecret, transport: transport)
        let (_, _, tokens) = try await signIn(client, server: server)
        _ = try await client.refresh(tokens)
        let request = try #require(transport.requests.first { $0.url.absoluteString.hasSuffix("/o/token/") })
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        switch method {
        case .clientSecretBasic:
            #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
            #expect(!body.contains("client_secret"))
        default:
            #expect(request.headers["Authorization"] == nil)
            #expect(body.contains("client_secret="))
        }
    }

    @Test func wrongSecretIsInvalidClient() async throws {
        let server = try Server.require()
        let client = client(try server.provider { $0.clientAuth.methods = [.clientSecretBasic] },
                            clientID: Server.confidentialClientID, secret: Secret("not-the-secret"))
        let pending = try await client.startAuthorization()
        let callback = try await server.signIn(pending.url)
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await client.finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(error.error == "invalid_client")
        #expect(error.httpStatus == 401)
    }

    @Test func wrongVerifierIsInvalidGrant() async throws {
        let server = try Server.require()
        let client = client(try server.provider())
        let pending = try await client.startAuthorization()
        let callback = try await server.signIn(pending.url)
        let tampered = PendingAuthorization(url: pending.url, providerID: pending.providerID, state: pending.state,
                                            pkce: PKCE.generate(), nonce: pending.nonce, redirectURI: pending.redirectURI,
                                            scopes: pending.scopes, createdAt: pending.createdAt)
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await client.finishSignIn(.callback(callback), pending: tampered).tokens
        }
        #expect(error.error == "invalid_grant")
        #expect(error.httpStatus == 400)
    }

    @Test func codeIsSpentOnce() async throws {
        let server = try Server.require()
        let provider = try server.provider()
        let first = client(provider)
        let (pending, callback, _) = try await signIn(first, server: server)
        // The same client refuses locally...
        let local = try await #require(throws: FlowError.self) { try await first.finishSignIn(.callback(callback), pending: pending).tokens }
        #expect(local.code == .alreadyCompleted)
        // ...and another client instance (say, after a restart) is refused by the server.
        let server400 = try await #require(throws: AuthorizationServerError.self) {
            try await client(provider).finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(server400.error == "invalid_grant")
    }

    @Test func forgedStateAndWrongIssuerNeverReachTheTokenEndpoint() async throws {
        let server = try Server.require()
        let transport = RecordingTransport()
        let client = client(try server.provider(), transport: transport)
        let pending = try await client.startAuthorization()
        let callback = try await server.signIn(pending.url)
        var components = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false))
        let code = try #require(components.queryItems?.first { $0.name == "code" }?.value)

        components.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: "forged")]
        let stateError = try await #require(throws: FlowError.self) {
            try await client.finishSignIn(.callback(try #require(components.url)), pending: pending).tokens
        }
        #expect(stateError.code == .stateMismatch)

        components.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: pending.state.value),
                                 URLQueryItem(name: "iss", value: "https://attacker.example.com")]
        let issError = try await #require(throws: FlowError.self) {
            try await client.finishSignIn(.callback(try #require(components.url)), pending: pending).tokens
        }
        #expect(issError.code == .issuerMismatch)
        #expect(transport.requests.isEmpty)

        // The genuine callback still completes the login afterwards.
        let tokens = try await client.finishSignIn(.callback(callback), pending: pending).tokens
        #expect(tokens.refreshToken != nil)
        #expect(transport.requests.filter { $0.url.absoluteString.hasSuffix("/o/token/") }.count == 1)
    }

    @Test func userDeniesConsent() async throws {
        let server = try Server.require()
        let client = client(try server.provider())
        let pending = try await client.startAuthorization()
        let callback = try await server.signIn(pending.url, deny: true)
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await client.finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(error.error == "access_denied")
    }

    @Test func replayedRefreshTokenIsInvalidGrant() async throws {
        let server = try Server.require()
        let client = client(try server.provider())
        let (_, _, tokens) = try await signIn(client, server: server)
        _ = try await client.refresh(tokens)
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.refresh(tokens) }
        #expect(error.error == "invalid_grant")
    }

    @Test func redirectFromTheTokenEndpointIsNotFollowed() async throws {
        let server = try Server.require()
        // DOT answers a POST to /o/token (no trailing slash) with 301.
        let provider = try server.provider { $0.endpoints.token = "http://127.0.0.1:{port}/o/token" }
        let client = client(provider)
        // Django's development server sometimes closes the connection on its 301 while the form body is still being
        // sent, and the client then sees a truncated answer (a TransportError): that says nothing about redirects,
        // so such a try is made again, with a new sign-in.
        for attempt in 1...3 {
            let pending = try await client.startAuthorization()
            let callback = try await server.signIn(pending.url)
            do {
                _ = try await client.finishSignIn(.callback(callback), pending: pending).tokens
                Issue.record("the redirect was followed, or the token endpoint answered")
                return
            } catch let error as FlowError {
                #expect(error.code == .unexpectedStatus)
                return
            } catch let error as TransportError where attempt < 3 {
                print("the development server cut its 301 short (\(error.message)); trying again")
            }
        }
        Issue.record("three tries in a row met a cut-off answer, not the 301")
    }

    @Test func oversizedResponseIsCutOff() async throws {
        let server = try Server.require()
        let transport = DefaultHTTPTransport(timeout: 10, maximumResponseSize: 256)
        let url = server.baseURL.appendingPathComponent("o/.well-known/openid-configuration")
        let error = try await #require(throws: TransportError.self) { try await transport.send(TransportRequest(method: .get, url: url)) }
        #expect(error.message.contains("larger than the 256 bytes accepted"))
        let roomy = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: url))
        #expect(roomy.status == 200 && roomy.body.count > 256)
    }

    @Test func nothingSecretIsLoggedAtAnyLevel() async throws {
        let server = try Server.require()
        let handler = CapturingLogHandler()
        let logger = Logger(label: "test", factory: { _ in handler })
        let client = OAuthClient(provider: try server.provider { $0.clientAuth.methods = [.clientSecretPost] },
                                 configuration: ClientConfiguration(clientID: Server.confidentialClientID, redirectURI: Server.redirectURI,
                                                                    clientSecret: Server.confidentialSecret), environment: OAuthEnvironment(logger: logger))
        let pending = try await client.startAuthorization()
        let callback = try await server.signIn(pending.url)
        let code = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
        let tokens = try await client.finishSignIn(.callback(callback), pending: pending).tokens
        let refreshed = try await client.refresh(tokens)
        _ = try await client.userInfo(refreshed)
        try await client.revoke(refreshed.accessToken, kind: .accessToken)

        var secrets = [code, Server.confidentialSecret.value, pending.state.value, tokens.accessToken.value, refreshed.accessToken.value]
        secrets += [pending.pkce?.verifier.value, pending.nonce?.value, tokens.refreshToken?.value, tokens.idToken?.value,
                    refreshed.refreshToken?.value].compactMap { $0 }
        let log = handler.messages.joined(separator: "\n")
        #expect(handler.messages.count >= 5, "the flow should log its steps")
        for secret in secrets {
            #expect(!log.contains(secret), "a secret reached the log")
        }
        #expect(!"\(tokens)".contains(tokens.accessToken.value))
    }
}
