import Crypto
import CryptoExtras
import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The OpenID Foundation's logout relying-party test plans (`OIDCCClientRPInitiatedLogoutRPBasicTestPlan`,
/// `OIDCCClientBackChannelLogoutRPBasicTestPlan`, `OIDCCClientFrontChannelLogoutRPBasicTestPlan` in
/// openid-certification/conformance-suite, `openid/client/logout`), reproduced module by module: a simulated provider
/// plays the server each module plays (its end-session endpoint, its logout tokens and its front-channel page are played
/// here, as the module's source builds them), a client signs in and out against it as a host would, and each test
/// asserts what the module asserts of the relying party.
///
/// The variant reproduced: the Basic plans (`response_type: code`), discovery, a public client whose ID tokens the
/// provider signs ES256 (its registered `id_token_signed_response_alg`; the descriptor keeps the default
/// `security.id_token_algs`), with a post-logout redirect URI and both logout URIs registered. This is a reproduction of the public plans, not a certification.
@Suite struct OIDCLogoutPlanTests {
    /// The post-logout redirect URI the client registered (the suite's `post_logout_redirect_uris`).
    static let postLogoutRedirectURI = URL(string: "http://127.0.0.1/signed-out") ?? URL(fileURLWithPath: "/")
    /// The front-channel logout URI the client registered: the host's route that hands its query to the receiver.
    static let frontChannelLogoutURI = URL(string: "http://127.0.0.1/frontchannel-logout") ?? URL(fileURLWithPath: "/")
    /// The event a logout token must carry (Back-Channel Logout 1.0 §2.4).
    static let logoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// How the module's server signs a logout token.
    enum Signing: Sendable {
        /// ES256, the client's registered algorithm, with a key the server's key set publishes.
        case registered
        /// `alg: none`, no signature (`OIDCCSignLogoutTokenWithAlgNone`).
        case none
        /// RS256, another algorithm than the registered one, with an RSA key the key set also publishes
        /// (`OIDCCSignLogoutTokenWithWrongAlgorithm`).
        case wrongAlgorithm
    }

    /// The server's own signing keys, published in its key set beside the simulated provider's, as the suite's key set
    /// holds keys of several types (`OIDCCGenerateServerJWKs`). Made once: an RSA key takes a while.
    struct ServerKeys: Sendable {
        let ec = P256.Signing.PrivateKey()
        let rsa: _RSA.Signing.PrivateKey
        let ecKeyID = "suite-ec-" + Base64URL.random(bytes: 6)
        let rsaKeyID = "suite-rsa-" + Base64URL.random(bytes: 6)

        init() throws {
            rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        }

        /// Both public keys as JWKs, without `alg`, as the suite publishes them.
        func jwks() throws -> [JSONValue] {
            let point = ec.publicKey.x963Representation
            let primitives = try rsa.publicKey.getKeyPrimitives()
            return [
                .object([
                    "kty": .string("EC"), "crv": .string("P-256"), "use": .string("sig"), "kid": .string(ecKeyID),
                    "x": .string(Base64URL.encode(point.dropFirst().prefix(32))), "y": .string(Base64URL.encode(point.suffix(32))),
                ]),
                .object([
                    "kty": .string("RSA"), "use": .string("sig"), "kid": .string(rsaKeyID), "n": .string(Base64URL.encode(primitives.modulus)),
                    "e": .string(Base64URL.encode(primitives.publicExponent)),
                ]),
            ]
        }

        /// A compact JWS of `claims`; its header carries `alg` and `kid` only, no `typ`, as the suite's logout tokens.
        func sign(_ claims: [String: JSONValue], _ signing: Signing) throws -> String {
            let payload = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(claims)))
            func header(_ members: [String: JSONValue]) throws -> String {
                Base64URL.encode(try JSONEncoder().encode(JSONValue.object(members)))
            }
            switch signing {
            case .none:
                return try header(["alg": .string("none")]) + "." + payload + "."
            case .registered:
                let input = try header(["alg": .string("ES256"), "kid": .string(ecKeyID)]) + "." + payload
                return input + "." + Base64URL.encode(try ec.signature(for: Data(input.utf8)).rawRepresentation)
            case .wrongAlgorithm:
                let input = try header(["alg": .string("RS256"), "kid": .string(rsaKeyID)]) + "." + payload
                let signature = try rsa.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
                return input + "." + Base64URL.encode(signature.rawRepresentation)
            }
        }
    }

    static let serverKeys = Result { try ServerKeys() }

    /// The ID tokens the server issued (`all_issued_id_tokens`): an end-session request's `id_token_hint` must be one.
    actor IssuedIDTokens {
        var tokens: Set<String> = []
        func insert(_ token: String) { tokens.insert(token) }
        func contains(_ token: String) -> Bool { tokens.contains(token) }
    }

    /// What the module's end-session endpoint does with the `state` it sends back to the post-logout redirect URI.
    enum ReturnedState: Sendable {
        /// Returns it as sent (`CreatePostLogoutRedirectUriParams`).
        case asSent
        /// Appends `_INVALID` to it (`AddInvalidStateToPostLogoutRedirectUriParams`).
        case changed
        /// Leaves it out (`RemoveStateFromPostLogoutRedirectUriParams`).
        case omitted
    }

    /// One module's run: the server it plays, a client of it, the host's session store and its logout receiver.
    struct Run {
        let simulated: SimulatedProvider
        let keys: ServerKeys
        let client: OAuthClient
        let store: InMemoryTokenStore
        let receiver: ProviderLogoutReceiver
        let issued: IssuedIDTokens
        let sent: RecordingTransport

        var endSessionEndpoint: URL { simulated.issuer.appendingPathComponent("end_session_endpoint") }

        /// A whole sign-in, stored as the host stores it.
        func signIn() async throws -> SignInResult {
            let pending = try await client.startAuthorization()
            let outcome = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
            #expect(
                outcome.idToken?.all["sid"]?.stringValue?.hasSuffix("#%&+ ") == true, "the module's ID tokens carry its sid (AddSidToIdTokenClaims)")
            return try await SignInResult.store(
                outcome, client: client, redirectURI: SimulatedProvider.appRedirectURI, in: store, at: simulated.clock.now())
        }

        /// The module's end-session endpoint (`handleEndSessionEndpointRequest`): checks the request as the module does,
        /// and answers with the redirect to the post-logout redirect URI, carrying `state` as `returning` says.
        ///
        /// - Parameter requiresState: Whether the module requires a `state` (`EnsureEndSessionEndpointRequestContainsStateParameter`).
        func endSession(_ request: URL, returning: ReturnedState, requiresState: Bool = false) async throws -> URL {
            var components = try #require(URLComponents(url: request, resolvingAgainstBaseURL: false))
            components.query = nil
            #expect(components.url == endSessionEndpoint, "the request goes to the discovered end_session_endpoint")
            let parameters = Simulation.query(request)
            // ValidateIdTokenHintInRPInitiatedLogoutRequest: an ID token this server issued.
            let hint = try #require(parameters["id_token_hint"])
            #expect(await issued.contains(hint), "id_token_hint is not an ID token this server issued")
            // ValidatePostLogoutRedirectUri: one of the registered post_logout_redirect_uris.
            let redirect = try #require(parameters["post_logout_redirect_uri"])
            #expect(redirect == OIDCLogoutPlanTests.postLogoutRedirectURI.absoluteString)
            #expect(parameters["client_id"] == SimulatedProvider.appClientID)
            let state = parameters["state"]
            if requiresState { #expect(state?.isEmpty == false, "the end-session request carries no state") }
            var back = try #require(URLComponents(string: redirect))
            var items = back.queryItems ?? []
            switch (returning, state) {
            case let (.asSent, state?): items.append(URLQueryItem(name: "state", value: state))
            case let (.changed, state?): items.append(URLQueryItem(name: "state", value: state + "_INVALID"))
            case (.changed, nil): items.append(URLQueryItem(name: "state", value: "INVALID"))
            case (.asSent, nil), (.omitted, _): break
            }
            back.queryItems = items.isEmpty ? nil : items
            return try #require(back.url)
        }

        /// The logout token the module makes for `session` (`GenerateLogoutTokenClaims`): `iss`, `sub`, `aud`, a UUID
        /// `jti`, `sid`, the logout event, `iat`, `exp` two minutes on and a claim to ignore; changed as the module
        /// changes it, then signed as it signs.
        func logoutToken(
            for session: IDTokenClaims, change: (inout [String: JSONValue]) -> Void = { _ in }, signing: Signing = .registered
        ) throws -> String {
            let now = simulated.clock.now().timeIntervalSince1970.rounded(.down)
            var claims: [String: JSONValue] = [
                "iss": .string(simulated.issuer.absoluteString), "sub": .string(session.subject), "aud": .string(SimulatedProvider.appClientID),
                "jti": .string(UUID().uuidString), "events": .object([OIDCLogoutPlanTests.logoutEvent: .object([:])]),
                "iat": .number(now), "exp": .number(now + 120),
                "ignored_claim": .string("Logout tokens may carry claims the relying party does not understand; it ignores them."),
            ]
            if let sid = session.all["sid"]?.stringValue { claims["sid"] = .string(sid) }
            change(&claims)
            return try keys.sign(claims, signing)
        }

        /// The module's back-channel logout request (`CallRPBackChannelLogoutEndpoint`), received by the host's route:
        /// a form with the token and a parameter to ignore.
        func postLogoutToken(_ token: String) async -> ProviderLogoutReceiver.Answer {
            let body = FormEncoding.encode([
                ("logout_token", token), ("ignored_parameter", "Other values in the body are ignored by the relying party."),
            ])
            return await receiver.receiveBackChannel(body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
        }

        /// The URL the module's front-channel page loads in its iframe (`CreateRPFrontChannelLogoutRequestUrl`): the
        /// registered URI, with `iss` and `sid` when the client registered `frontchannel_logout_session_required`.
        func frontChannelRequest(for session: IDTokenClaims, sessionRequired: Bool) throws -> URL {
            var components = try #require(URLComponents(url: OIDCLogoutPlanTests.frontChannelLogoutURI, resolvingAgainstBaseURL: false))
            if sessionRequired {
                // Encoded as a form query: the suite's sid holds `#`, `%`, `&`, `+` and a space.
                components.percentEncodedQuery = FormEncoding.encode([
                    ("iss", simulated.issuer.absoluteString), ("sid", try #require(session.all["sid"]?.stringValue)),
                ])
            }
            return try #require(components.url)
        }

        /// The host's front-channel route loading `url`, in the browser whose own session is `current`.
        func loadFrontChannel(_ url: URL, current: SessionKey) async -> ProviderLogoutReceiver.Answer {
            await receiver.receiveFrontChannel(query: URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery, current: current)
        }
    }

    /// A server as the suite's logout modules set it up (`OIDCCGenerateServerConfigurationWithSessionManagement`): discovery
    /// names its end-session endpoint and its back- and front-channel logout support, its ID tokens carry `sid`; and a
    /// client of it whose descriptor says what the client registered.
    static func run(frontChannelSessionRequired: Bool = true) async throws -> Run {
        let simulated = try SimulatedProvider()
        let keys = try serverKeys.get()
        let published = try keys.jwks()
        let issued = IssuedIDTokens()
        let endSession = simulated.issuer.appendingPathComponent("end_session_endpoint").absoluteString
        let sid = suiteSessionID()
        let edited = ScriptedTransport { request, _ in
            let response = try await simulated.transport.send(request)
            switch request.url.path {
            case "/.well-known/openid-configuration":
                return try rewritten(response) { members in
                    members["end_session_endpoint"] = .string(endSession)
                    members["frontchannel_logout_supported"] = .bool(true)
                    members["frontchannel_logout_session_supported"] = .bool(true)
                }
            case "/jwks":
                return try rewritten(response) { members in
                    guard case let .array(own)? = members["keys"] else { return }
                    members["keys"] = .array(own + published)
                }
            case "/token" where response.status == 200:
                // The module's ID tokens carry its own sid (AddSidToIdTokenClaims): signed again with the server's key.
                let changed = try rewritten(response) { members in
                    guard let idToken = members["id_token"]?.stringValue else { return }
                    var claims = Simulation.claims(idToken)
                    claims["sid"] = .string(sid)
                    members["id_token"] = (try? keys.sign(claims, .registered)).map { .string($0) }
                }
                if let idToken = Simulation.members(changed)["id_token"]?.stringValue { await issued.insert(idToken) }
                return changed
            default:
                return response
            }
        }
        let sent = RecordingTransport(edited)
        var environment = simulated.environment
        environment.transport = sent

        var options = SimulatedProvider.DescriptorOptions()
        options.id = "logout-plan"
        options.usesDiscovery = true
        var descriptor = try simulated.descriptor(options)
        // The descriptor keeps the default `id_token_algs` (RS256 and ES256): the provider signs ID tokens ES256 (the
        // client's id_token_signed_response_alg), and a logout token signed with the other is refused because the
        // session's ID token says which the provider uses (Back-Channel Logout 1.0 §2.4), not because the list is narrowed.
        descriptor.logout.backchannelLogoutSupported = true
        descriptor.logout.backchannelLogoutSessionSupported = true
        descriptor.logout.frontchannelLogoutSupported = true
        descriptor.logout.frontchannelLogoutSessionSupported = frontChannelSessionRequired
        let client = OAuthClient(
            provider: try descriptor.resolve(),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI),
            environment: environment)
        let store = InMemoryTokenStore()
        return Run(
            simulated: simulated, keys: keys, client: client, store: store, receiver: ProviderLogoutReceiver(client: client, sessions: store),
            issued: issued, sent: sent)
    }

    /// A session id as the suite makes one (`GenerateSessionState`): twenty letters, ten digits and five printable ASCII
    /// punctuation characters (VSCHAR), here the five a URL query treats specially.
    static func suiteSessionID() -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        let digits = Array("0123456789")
        return String((0..<20).compactMap { _ in letters.randomElement() }) + String((0..<10).compactMap { _ in digits.randomElement() }) + "#%&+ "
    }

    /// `response` with its JSON object changed.
    static func rewritten(_ response: TransportResponse, _ change: (inout [String: JSONValue]) -> Void) throws -> TransportResponse {
        var members = Simulation.members(response)
        change(&members)
        var changed = response
        changed.body = try JSONEncoder().encode(JSONValue.object(members))
        return changed
    }

    /// Whether `answer` may not be kept by a cache: `Cache-Control` holds `no-store`
    /// (`EnsureBackChannelLogoutEndpointResponseContainsCacheHeaders`).
    static func isNoStore(_ answer: ProviderLogoutReceiver.Answer) -> Bool {
        answer.headers.contains { header in
            header.name.lowercased() == "cache-control"
                && header.value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "no-store" }
        }
    }

    /// Whether the front-channel answer may be shown in the provider's iframe: nothing forbids framing it.
    static func isFrameable(_ answer: ProviderLogoutReceiver.Answer) -> Bool {
        !answer.headers.contains { header in
            header.name.lowercased() == "x-frame-options"
                || (header.name.lowercased() == "content-security-policy" && header.value.contains("frame-ancestors"))
        }
    }

    // MARK: - RP-Initiated Logout

    /// A module of the RP-Initiated Logout plan: the client signs out and sends the browser to the end-session endpoint,
    /// which comes back with the state as sent, another one, or none.
    struct RPInitiatedModule: CustomTestStringConvertible, Sendable {
        let module: String
        let returning: ReturnedState
        /// Whether the module requires a `state` in the end-session request (it skips itself without one).
        let requiresState: Bool
        var testDescription: String { module }
    }

    static let rpInitiatedModules: [RPInitiatedModule] = [
        .init(module: "OIDCCClientTestRPInitLogout", returning: .asSent, requiresState: false),
        .init(module: "OIDCCClientTestRPInitLogoutInvalidState", returning: .changed, requiresState: true),
        .init(module: "OIDCCClientTestRPInitLogoutNoState", returning: .omitted, requiresState: true),
    ]

    @Test(
        "RP-Initiated Logout: the client signs out, ends the provider's session, and checks the state that comes back", arguments: rpInitiatedModules)
    func rpInitiatedLogout(_ module: RPInitiatedModule) async throws {
        let run = try await Self.run()
        let signedIn = try await run.signIn()
        let session = try #require(signedIn.idToken)
        // The host's sign-out: the tokens revoked, the session removed, the end-session request made.
        let manager = TokenManager(client: run.client, store: run.store, key: signedIn.session.key)
        let signedOut = try await manager.signOut(endingProviderSession: .init(postLogoutRedirectURI: Self.postLogoutRedirectURI))
        let request = try #require(signedOut.endSession, "\(signedOut.endSessionError.map { "\($0)" } ?? "")")
        #expect(await run.store.load(signedIn.session.key) == nil)
        // The module's end-session endpoint: the back-channel logout token for the session it ends, then the front-channel
        // page, then the redirect back. The suite checks only the cache header of the back-channel answer here.
        let token = try run.logoutToken(for: session)
        let back = try await run.endSession(request.url, returning: module.returning, requiresState: module.requiresState)
        let backChannel = await run.postLogoutToken(token)
        #expect(Self.isNoStore(backChannel))
        #expect(backChannel.status == 200, "\(backChannel.reason ?? "")")
        #expect(backChannel.ended.isEmpty, "the session had already ended")
        let frontChannel = await run.loadFrontChannel(try run.frontChannelRequest(for: session, sessionRequired: true), current: signedIn.session.key)
        #expect(frontChannel.status == 200 && frontChannel.ended.isEmpty && Self.isFrameable(frontChannel))
        // The return to the post-logout redirect URI: taken when it carries the state sent, refused otherwise.
        let returned = URLComponents(url: back, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        #expect(request.acceptsReturn(query: returned) == (module.returning == .asSent))
        #expect(await run.store.load(signedIn.session.key) == nil)
    }

    // MARK: - Back-Channel Logout

    /// A module of the Back-Channel Logout plan: after the client's end-session request, the server POSTs a logout token
    /// to its back-channel logout URI, made and signed as the module makes it.
    struct BackChannelModule: CustomTestStringConvertible, Sendable {
        let module: String
        var change: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        var signing = Signing.registered
        /// Nil for the honest token, which is taken (200); else what the refusal (400) says.
        var refusal: String? = nil
        var testDescription: String { module }
    }

    static let backChannelModules: [BackChannelModule] = [
        .init(module: "OIDCCClientTestBackChannelLogout"),
        .init(module: "OIDCCClientTestBackChannelLogoutAlgNone", signing: .none, refusal: "algorithm `none` is not allowed"),
        .init(module: "OIDCCClientTestBackChannelLogoutNoEvent", change: { $0["events"] = nil }, refusal: "events"),
        .init(
            module: "OIDCCClientTestBackChannelLogoutWithNonce", change: { $0["nonce"] = .string("logout_tokens_must_not_contain_a_nonce") },
            refusal: "nonce"),
        .init(module: "OIDCCClientTestBackChannelLogoutWrongAlg", signing: .wrongAlgorithm, refusal: "signed with RS256, and the session's ID tokens with ES256"),
        .init(
            module: "OIDCCClientTestBackChannelLogoutWrongAud", change: { $0["aud"] = .string(($0["aud"]?.stringValue ?? "") + "INVALID") },
            refusal: "not for this client"),
        .init(
            module: "OIDCCClientTestBackChannelLogoutWrongEvent",
            change: { $0["events"] = .object(["http://schemas.openid.net/event/foobar": .object([:])]) }, refusal: "events"),
        .init(
            module: "OIDCCClientTestBackChannelLogoutWrongIssuer", change: { $0["iss"] = .string(($0["iss"]?.stringValue ?? "") + "INVALID") },
            refusal: "issued by"),
    ]

    /// The host sends the browser to the end-session endpoint and keeps its session until the provider's logout token
    /// ends it, so that what the token ends (or leaves alone) shows.
    @Test(
        "Back-Channel Logout: an honest logout token ends the session (200); a bad one is refused (400) and ends nothing",
        arguments: backChannelModules)
    func backChannelLogout(_ module: BackChannelModule) async throws {
        let run = try await Self.run()
        let signedIn = try await run.signIn()
        let session = try #require(signedIn.idToken)
        let request = try await run.client.endSessionRequest(idToken: signedIn.tokens.idToken, postLogoutRedirectURI: Self.postLogoutRedirectURI)
        // The module makes the logout token before it ends its own session, then answers, then POSTs the token.
        let token = try run.logoutToken(for: session, change: module.change, signing: module.signing)
        let back = try await run.endSession(request.url, returning: .asSent)
        let answer = await run.postLogoutToken(token)
        #expect(Self.isNoStore(answer))
        if let refusal = module.refusal {
            #expect(answer.status == 400)
            #expect(answer.reason?.contains(refusal) == true, "\(answer.reason ?? "")")
            #expect(answer.ended.isEmpty)
            #expect(await run.store.load(signedIn.session.key) != nil, "a refused logout token ended the session")
        } else {
            #expect(answer.status == 200, "\(answer.reason ?? "")")
            #expect(answer.ended == [signedIn.session.key])
            #expect(await run.store.load(signedIn.session.key) == nil)
        }
        // Then the redirect back to the post-logout redirect URI, with the state sent.
        #expect(request.acceptsReturn(query: URLComponents(url: back, resolvingAgainstBaseURL: false)?.percentEncodedQuery))
    }

    // MARK: - Front-Channel Logout

    /// Whether the client registered `frontchannel_logout_session_required`: the iframe URL then carries `iss` and `sid`.
    enum FrontChannelRegistration: CaseIterable, CustomTestStringConvertible, Sendable {
        case sessionRequired
        case sessionNotRequired

        var sessionRequired: Bool { self == .sessionRequired }
        var testDescription: String { "frontchannel_logout_session_required: \(sessionRequired)" }
    }

    @Test(
        "OIDCCClientTestFrontChannelLogoutRPInitiated: after the end-session request, the provider's page loads the front-channel logout URI",
        arguments: FrontChannelRegistration.allCases)
    func frontChannelLogoutRPInitiated(_ registration: FrontChannelRegistration) async throws {
        let run = try await Self.run(frontChannelSessionRequired: registration.sessionRequired)
        let signedIn = try await run.signIn()
        let session = try #require(signedIn.idToken)
        let request = try await run.client.endSessionRequest(idToken: signedIn.tokens.idToken, postLogoutRedirectURI: Self.postLogoutRedirectURI)
        let back = try await run.endSession(request.url, returning: .asSent)
        // The module's page: an iframe loading the front-channel logout URI, then the redirect back.
        let answer = await run.loadFrontChannel(
            try run.frontChannelRequest(for: session, sessionRequired: registration.sessionRequired), current: signedIn.session.key)
        #expect(answer.status == 200, "\(answer.reason ?? "")")
        #expect(answer.ended == [signedIn.session.key])
        #expect(Self.isFrameable(answer))
        #expect(await run.store.load(signedIn.session.key) == nil)
        #expect(request.acceptsReturn(query: URLComponents(url: back, resolvingAgainstBaseURL: false)?.percentEncodedQuery))
    }

    @Test(
        "OIDCCClientTestFrontChannelLogoutOPInitiated: without an end-session request, the provider's page loads the front-channel logout URI",
        arguments: FrontChannelRegistration.allCases)
    func frontChannelLogoutOPInitiated(_ registration: FrontChannelRegistration) async throws {
        let run = try await Self.run(frontChannelSessionRequired: registration.sessionRequired)
        let signedIn = try await run.signIn()
        let session = try #require(signedIn.idToken)
        let answer = await run.loadFrontChannel(
            try run.frontChannelRequest(for: session, sessionRequired: registration.sessionRequired), current: signedIn.session.key)
        #expect(answer.status == 200, "\(answer.reason ?? "")")
        #expect(answer.ended == [signedIn.session.key])
        #expect(Self.isFrameable(answer))
        #expect(await run.store.load(signedIn.session.key) == nil)
        #expect(!run.sent.requests.contains { $0.url.path == "/end_session_endpoint" })
    }
}
