import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

@Suite struct AuthorizationRequestTests {
    let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]
    let redirect = URL(string: "http://127.0.0.1:49152/callback")!

    private func provider(_ id: String, _ variables: [String: String] = [:]) throws -> Provider {
        try ProviderRegistry.load(environment: isolated).descriptor(named: id).resolve(variables)
    }

    private func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                   uniquingKeysWith: { first, _ in first })
    }

    @Test func googleRequestCarriesPKCEStateNonceAndOfflineParameters() throws {
        let pending = try PendingAuthorization.start(provider: try provider("google"),
                                                     client: ClientConfiguration(clientID: "client-1", redirectURI: redirect))
        let q = query(pending.url)
        #expect(pending.url.absoluteString.hasPrefix("https://accounts.google.com/o/oauth2/v2/auth?"))
        #expect(q["response_type"] == "code")
        #expect(q["client_id"] == "client-1")
        #expect(q["redirect_uri"] == "http://127.0.0.1:49152/callback")
        #expect(q["scope"] == "openid email profile")
        #expect(q["code_challenge_method"] == "S256")
        #expect(q["code_challenge"] == pending.pkce?.challenge)
        #expect(q["state"] == pending.state.value)
        #expect(try #require(q["state"]).count >= 43)
        #expect(q["nonce"] == pending.nonce?.value)
        #expect(q["access_type"] == "offline")
        #expect(q["prompt"] == "consent")
        #expect(q["code_verifier"] == nil)
    }

    @Test func offlineScopesAreAddedOnlyWhenAsked() throws {
        let auth0 = try provider("auth0", ["domain": "example.us.auth0.com"])
        let offline = try PendingAuthorization.start(provider: auth0, client: ClientConfiguration(clientID: "c", redirectURI: redirect))
        #expect(query(offline.url)["scope"] == "openid profile email offline_access")
        let online = try PendingAuthorization.start(
            provider: auth0, client: ClientConfiguration(clientID: "c", redirectURI: redirect, requestOfflineAccess: false))
        #expect(query(online.url)["scope"] == "openid profile email")
    }

    @Test func githubHasNoNonce() throws {
        let pending = try PendingAuthorization.start(provider: try provider("github"),
                                                     client: ClientConfiguration(clientID: "c", redirectURI: redirect))
        #expect(pending.nonce == nil)
        #expect(query(pending.url)["nonce"] == nil)
        #expect(query(pending.url)["scope"] == "read:user user:email")
    }

    @Test func reservedParametersCannotBeOverridden() throws {
        let text = """
            schema_version: 1
            id: sneaky
            display_name: Sneaky
            protocol: oauth2
            issuer: https://auth.example.com
            endpoints:
              authorization: https://auth.example.com/authorize?client_id=evil&keep=1
              token: https://auth.example.com/token
            authorization:
              extra_params:
                redirect_uri: https://evil.example.com
                code_challenge_method: plain
                audience: api
            """
        let descriptor = try #require(DescriptorDocument.parse(Data(text.utf8), path: "sneaky.yaml").descriptor)
        let pending = try PendingAuthorization.start(provider: try descriptor.resolve(),
                                                     client: ClientConfiguration(clientID: "good", redirectURI: redirect))
        let items = URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.filter { $0.name == "client_id" }.map(\.value) == ["good"])
        #expect(items.filter { $0.name == "redirect_uri" }.map(\.value) == [redirect.absoluteString])
        #expect(items.filter { $0.name == "code_challenge_method" }.map(\.value) == ["S256"])
        #expect(query(pending.url)["audience"] == "api")
        #expect(query(pending.url)["keep"] == "1")
    }

    @Test(arguments: ["http://example.com/callback", "http://127.0.0.1/cb#frag"])
    func unsafeRedirectURIsAreRefused(_ uri: String) throws {
        let client = ClientConfiguration(clientID: "c", redirectURI: try #require(URL(string: uri)) as URL)
        #expect(throws: FlowError.self) { try PendingAuthorization.start(provider: try provider("google"), client: client) }
    }

    @Test func pendingAuthorizationSurvivesARestart() throws {
        let pending = try PendingAuthorization.start(provider: try provider("google"),
                                                     client: ClientConfiguration(clientID: "c", redirectURI: redirect))
        let data = try JSONEncoder().encode(pending)
        #expect(try JSONDecoder().decode(PendingAuthorization.self, from: data) == pending)
    }
}

@Suite struct CallbackTests {
    let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]
    let redirect = URL(string: "http://127.0.0.1:49152/callback")!

    private func start(_ id: String = "google") throws -> (Provider, PendingAuthorization) {
        let provider = try ProviderRegistry.load(environment: isolated).descriptor(named: id).resolve()
        return (provider, try PendingAuthorization.start(provider: provider, client: ClientConfiguration(clientID: "c", redirectURI: redirect)))
    }

    private func callback(_ query: String) throws -> AuthorizationCallback {
        try AuthorizationCallback(url: try #require(URL(string: "http://127.0.0.1:49152/callback?" + query)), expectedRedirectURI: redirect)
    }

    @Test func validCallbackYieldsTheCode() throws {
        let (provider, pending) = try start()
        let code = try callback("code=abc123&state=\(pending.state.value)&iss=https%3A%2F%2Faccounts.google.com").validate(for: pending, provider: provider)
        #expect(code.value == "abc123")
    }

    @Test func stateMismatchIsRejected() throws {
        let (provider, pending) = try start()
        let error = try #require(throws: FlowError.self) { try callback("code=abc&state=forged").validate(for: pending, provider: provider) }
        #expect(error.code == .stateMismatch)
        let missing = try #require(throws: FlowError.self) { try callback("code=abc").validate(for: pending, provider: provider) }
        #expect(missing.code == .stateMismatch)
    }

    @Test func issuerMismatchIsRejectedBeforeAnyTokenRequest() throws {
        let (provider, pending) = try start()
        let error = try #require(throws: FlowError.self) {
            try callback("code=abc&state=\(pending.state.value)&iss=https%3A%2F%2Fevil.example.com").validate(for: pending, provider: provider)
        }
        #expect(error.code == .issuerMismatch)
        #expect(error.message.contains("mix-up"))
    }

    @Test func serverErrorIsTyped() throws {
        let (provider, pending) = try start()
        let error = try #require(throws: AuthorizationServerError.self) {
            try callback("error=access_denied&error_description=The+user+said+no&state=\(pending.state.value)").validate(for: pending, provider: provider)
        }
        #expect(error.error == "access_denied")
        #expect(error.errorDescription == "The user said no")
    }

    private func startRequiringIss() throws -> (Provider, PendingAuthorization) {
        let provider = try TestDescriptor(id: "strict", extra: "security:\n  iss_parameter: required\n").provider()
        return (provider, try PendingAuthorization.start(provider: provider, client: ClientConfiguration(clientID: "c", redirectURI: redirect)))
    }

    @Test func anErrorRedirectWithoutIssIsReportedAsTheProvidersUnauthenticatedError() throws {
        let (provider, pending) = try startRequiringIss()
        let error = try #require(throws: AuthorizationServerError.self) {
            try callback("error=access_denied&error_description=The+user+said+%1B%5B31mno&state=\(pending.state.value)").validate(for: pending, provider: provider)
        }
        #expect(error.error == "access_denied")
        #expect(error.description.contains("unauthenticated"), "\(error)")
        #expect(!error.description.contains("mix-up"), "\(error)")
        // The provider's text reaches a terminal escaped.
        #expect(!TerminalText.escaped(error.description).contains("\u{1B}"))
    }

    @Test func anErrorRedirectNamingAnotherIssuerIsStillAMixUp() throws {
        let (provider, pending) = try startRequiringIss()
        let error = try #require(throws: FlowError.self) {
            try callback("error=access_denied&state=\(pending.state.value)&iss=https%3A%2F%2Fevil.example.com").validate(for: pending, provider: provider)
        }
        #expect(error.code == .issuerMismatch)
        #expect(error.message.contains("mix-up"))
    }

    @Test func anErrorRedirectWithTheRightIssIsReportedWithoutANote() throws {
        let (provider, pending) = try startRequiringIss()
        let error = try #require(throws: AuthorizationServerError.self) {
            try callback("error=access_denied&state=\(pending.state.value)&iss=https%3A%2F%2Fauth.example.com").validate(for: pending, provider: provider)
        }
        #expect(error.hint == nil)
    }

    @Test func aCodeWithoutIssIsStillRefusedWhenIssIsRequired() throws {
        let (provider, pending) = try startRequiringIss()
        let error = try #require(throws: FlowError.self) {
            try callback("code=abc&state=\(pending.state.value)").validate(for: pending, provider: provider)
        }
        #expect(error.code == .issuerMismatch)
    }

    /// RFC 9207 §2.4: a present `iss` is compared with the issuer whatever the descriptor says of it, `absent` too (the
    /// provider is not expected to send one, and one naming another server is a mix-up); without an issuer declared there
    /// is nothing to compare it with, and `absent` lets it be.
    @Test func aPresentIssIsComparedEvenWhenTheDescriptorSaysAbsent() throws {
        let provider = try TestDescriptor(id: "quiet", extra: "security:\n  iss_parameter: absent\n").provider()
        let pending = try PendingAuthorization.start(provider: provider, client: ClientConfiguration(clientID: "c", redirectURI: redirect))
        let state = pending.state.value
        let error = try #require(throws: FlowError.self) {
            try callback("code=abc&state=\(state)&iss=https%3A%2F%2Fevil.example.com").validate(for: pending, provider: provider)
        }
        #expect(error.code == .issuerMismatch)
        #expect(try callback("code=abc&state=\(state)&iss=https%3A%2F%2Fauth.example.com").validate(for: pending, provider: provider).value == "abc")
        #expect(try callback("code=abc&state=\(state)").validate(for: pending, provider: provider).value == "abc")

        let issuerless = TestDescriptor(id: "bare", extra: "security:\n  iss_parameter: absent\n").yaml.replacingOccurrences(
            of: "issuer: https://auth.example.com\n", with: "")
        let bare = try #require(DescriptorDocument.parse(Data(issuerless.utf8), path: "bare.yaml").descriptor).resolve([:])
        #expect(bare.issuer == nil)
        let bareStart = try PendingAuthorization.start(provider: bare, client: ClientConfiguration(clientID: "c", redirectURI: redirect))
        #expect(
            try callback("code=abc&state=\(bareStart.state.value)&iss=https%3A%2F%2Fother.example.com").validate(for: bareStart, provider: bare).value
                == "abc")
    }

    /// RFC 9207 §2.4: once the metadata in hand says the server sends `iss`, a callback without it is refused, and
    /// no code is exchanged, though the descriptor says `if_present`.
    @Test(arguments: [true, false])
    func aCallbackWithoutIssFromAServerThatAdvertisesItIsRefused(advertised: Bool) async throws {
        let metadata =
            #"{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize","token_endpoint":"https://auth.example.com/token","#
            + #""authorization_response_iss_parameter_supported":\#(advertised)}"#
        let transport = ScriptedTransport { request, _ in
            if request.url.path.hasPrefix("/.well-known") {
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(metadata.utf8))
            }
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"access_token":"a","token_type":"Bearer"}"#.utf8))
        }
        let provider = try TestDescriptor(protocol: .oauth2, endpoints: [], extra: "discovery:\n  mode: rfc8414\n").provider()
        #expect(provider.policy.issParameter == .ifPresent)
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "c", redirectURI: redirect), environment: OAuthEnvironment(transport: transport))
        let pending = try await client.startAuthorization()
        let url = try #require(URL(string: "http://127.0.0.1:49152/callback?code=abc&state=\(pending.state.value)"))
        if advertised {
            let error = try await #require(throws: FlowError.self) { try await client.finishSignIn(.callback(url), pending: pending).tokens }
            #expect(error.code == .issuerMismatch)
            #expect(error.message.contains("authorization_response_iss_parameter_supported"), "\(error.message)")
            #expect(transport.count("/token") == 0, "no code is exchanged")
        } else {
            _ = try await client.finishSignIn(.callback(url), pending: pending).tokens
            #expect(transport.count("/token") == 1)
        }
    }

    @Test func missingCodeAndRepeatedParametersAreRejected() throws {
        let (provider, pending) = try start()
        let missing = try #require(throws: FlowError.self) { try callback("state=\(pending.state.value)").validate(for: pending, provider: provider) }
        #expect(missing.code == .missingCode)
        let repeated = try #require(throws: FlowError.self) {
            try callback("code=a&code=b&state=\(pending.state.value)").validate(for: pending, provider: provider)
        }
        #expect(repeated.code == .invalidCallback)
    }

    @Test func callbackForAnotherPathIsRejected() throws {
        #expect(throws: FlowError.self) {
            try AuthorizationCallback(url: URL(string: "http://127.0.0.1:49152/other?code=a")!, expectedRedirectURI: redirect)
        }
    }

    @Test func formPostBodyIsRead() throws {
        let (provider, pending) = try start()
        let body = Data("code=x%2By&state=\(pending.state.value)".utf8)
        #expect(try AuthorizationCallback(formBody: body).validate(for: pending, provider: provider).value == "x+y")
    }

    @Test func formEncodingRoundTrips() {
        let pairs = [("a b", "c&d=e+f"), ("é", "/?#")]
        let encoded = FormEncoding.encode(pairs)
        #expect(encoded == "a+b=c%26d%3De%2Bf&%C3%A9=%2F%3F%23")
        #expect(FormEncoding.decode(encoded).map { [$0.0, $0.1] } == pairs.map { [$0.0, $0.1] })
    }
}
