import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The OpenID Foundation's FAPI 2.0 relying-party test plans (`FAPI2SPFinalClientTestPlan` and
/// `FAPI2MessageSigningFinalClientTestPlan` in openid-certification/conformance-suite, `fapi2spfinal`), reproduced
/// module by module: a simulated provider plays the server each module plays, an `OAuthClient` held to
/// `security.profile: fapi2` signs in against it, and each test asserts what the module asserts: the sign-in goes
/// through, or the client refuses and calls nothing more.
///
/// The variant reproduced: `plain_fapi`, an OpenID Connect client, `private_key_jwt`, DPoP with server nonces at the
/// token and resource endpoints; unsigned pushed requests and plain responses for the Security Profile plan, signed
/// request objects (JAR) and JWT-secured responses (JARM) for the Message Signing plan (``Plan``). This is a
/// reproduction of the public plans, not a certification. Docs/conformance.md lists each module and its result.
@Suite struct FAPI2ClientPlanTests {
    static let clientID = "fapi2-relying-party"
    static let clientKey = P256.Signing.PrivateKey()
    /// The RS256 provider the alternate-algorithm modules sign with, made once for every run: each run only reads its
    /// key set and signs with it, and an RSA key costs a tenth of a second of CPU in a debug build.
    static let alternate = Result<SimulatedProvider, any Error> {
        var settings = SimulatedProvider.Settings()
        settings.signingAlgorithm = .rs256
        return try SimulatedProvider(settings: settings)
    }
    /// The resource the suite's server protects (its accounts endpoint), played by ``ResourceServer``.
    static let accounts = URL(string: "https://simulated.example/accounts") ?? URL(fileURLWithPath: "/")

    /// How an ID token the provider issued is signed again, after a module changed its claims.
    enum Signing: Sendable {
        /// With the provider's own key, as published (the claim checks are what is tested).
        case provider
        /// `alg: none`, no signature.
        case none
        /// RS256, with a key the provider's key set also publishes.
        case alternateRS256
    }

    /// The plan a module runs in, and so its variant: the Security Profile plan's plain requests and responses, or the
    /// Message Signing plan's signed request objects (JAR, pushed) and JWT-secured responses (JARM, `response_mode: jwt`).
    enum Plan: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case securityProfile = "FAPI2SPFinalClientTestPlan"
        case messageSigning = "FAPI2MessageSigningFinalClientTestPlan"

        var testDescription: String { rawValue }
    }

    /// What one module's server does differently from an honest FAPI 2.0 server.
    struct Server: Sendable {
        var settings: @Sendable (inout SimulatedProvider.Settings) -> Void = { _ in }
        var metadata: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        /// Changes the claims of each ID token the token endpoint gives; nil leaves ID tokens as issued.
        var idTokenClaims: (@Sendable (inout [String: JSONValue]) -> Void)? = nil
        var signing = Signing.provider
        /// Changes each successful token answer (after the ID token was signed again).
        var tokenAnswer: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        /// The scheme of the resource server's `use_dpop_nonce` challenge.
        var resourceScheme = "DPoP"
        /// Whether the resource server demands a DPoP nonce.
        var resourceNonce = true
        /// How many refreshes the resource server waits for before it takes an access token (401 `invalid_token` until then).
        var refreshesBeforeResourceAnswers = 0
        /// The Message Signing plan's variant: signed request objects (JAR), pushed, and JWT-secured responses (JARM).
        var signsMessages = false
        /// Whether the key set publishes the RS256 key of `.alternateRS256` even when ID tokens are not signed with it.
        var publishesAlternateKey = false
        /// Answers a request before the simulated provider does (the grant management modules' PAR endpoint and grant
        /// management API); nil passes it on.
        var intercept: (@Sendable (TransportRequest) async throws -> TransportResponse?)? = nil
        /// What the client asks of its grant (the grant management modules).
        var grantManagement: ManagedGrant.Action? = nil
    }

    /// The suite's resource endpoint: a DPoP-bound token from the token endpoint, a proof for it, and, when asked, the
    /// resource server's nonce in the proof (RFC 9449 §9), demanded with a 401 `use_dpop_nonce` challenge.
    actor ResourceServer {
        let scheme: String
        let demandsNonce: Bool
        let refreshesNeeded: Int
        let nonce = "rs-nonce-" + UUID().uuidString
        var issued: Set<String> = []
        var refreshes = 0
        var answered = 0

        init(_ server: Server) {
            scheme = server.resourceScheme
            demandsNonce = server.resourceNonce
            refreshesNeeded = server.refreshesBeforeResourceAnswers
        }

        func issue(_ token: String, refresh: Bool) {
            issued.insert(token)
            if refresh { refreshes += 1 }
        }

        func answer(_ request: TransportRequest) -> TransportResponse {
            let authorization = request.headers.first { $0.key.lowercased() == "authorization" }?.value ?? ""
            let parts = authorization.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].lowercased() == "dpop", issued.contains(parts[1]) else {
                return FAPI2ClientPlanTests.challenge(#"DPoP error="invalid_token""#)
            }
            guard let proof = request.headers.first(where: { $0.key.lowercased() == "dpop" })?.value else {
                return FAPI2ClientPlanTests.challenge(#"DPoP error="invalid_dpop_proof""#)
            }
            let claims = FAPI2ClientPlanTests.claims(proof)
            guard claims["htu"]?.stringValue == FAPI2ClientPlanTests.accounts.absoluteString, claims["ath"] != nil else {
                return FAPI2ClientPlanTests.challenge(#"DPoP error="invalid_dpop_proof""#)
            }
            if demandsNonce, claims["nonce"]?.stringValue != nonce {
                return FAPI2ClientPlanTests.challenge(
                    #"\#(scheme) error="use_dpop_nonce", error_description="the resource server requires its nonce""#, nonce: nonce)
            }
            if refreshes < refreshesNeeded {
                return FAPI2ClientPlanTests.challenge(
                    #"Bearer error="invalid_token", error_description="get a new access token with the refresh token""#)
            }
            answered += 1
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"accounts":[]}"#.utf8))
        }
    }

    /// A protected resource's 401 with `challenge` in `WWW-Authenticate`, and its DPoP nonce when it demands one.
    static func challenge(_ challenge: String, nonce: String? = nil) -> TransportResponse {
        var headers = ["WWW-Authenticate": challenge, "Content-Type": "application/json"]
        if let nonce { headers["DPoP-Nonce"] = nonce }
        return TransportResponse(status: 401, headers: headers, body: Data("{}".utf8))
    }

    /// One module's run: its server, a FAPI 2.0 client, every request the client sent.
    struct Run {
        let simulated: SimulatedProvider
        /// A provider signing with RS256, whose key the simulated provider's key set publishes beside its own when the
        /// module signs with `.alternateRS256`.
        let alternate: SimulatedProvider
        let resource: ResourceServer
        let client: OAuthClient
        let sent: RecordingTransport
        let environment: OAuthEnvironment

        func requests(to path: String) -> [TransportRequest] { sent.requests.filter { $0.url.path == path } }

        /// The requests the client sent after the `index`th one.
        func requests(after index: Int) -> [TransportRequest] { Array(sent.requests.dropFirst(index)) }

        /// Starts a sign-in, has the simulated user approve it, and changes the callback's parameters as the module does.
        func callback(_ change: (inout [URLQueryItem]) -> Void = { _ in }) async throws -> (PendingAuthorization, URL) {
            let pending = try await client.startAuthorization()
            let approved = try await simulated.approve(pending.url)
            var components = try #require(URLComponents(url: approved, resolvingAgainstBaseURL: false))
            var items = components.queryItems ?? []
            change(&items)
            components.queryItems = items
            return (pending, try #require(components.url))
        }

        /// A GET of the accounts resource with `tokens`.
        func accounts(_ tokens: TokenSet) async throws -> TransportResponse {
            try await tokens.send(TransportRequest(method: .get, url: FAPI2ClientPlanTests.accounts), environment: environment)
        }
    }

    /// A provider set up as the suite's FAPI 2.0 server (pushed requests, `private_key_jwt`, DPoP with nonces), changed
    /// as `server` says, and a client of it under `security.profile: fapi2` (`fapi2_message_signing` for the Message
    /// Signing plan).
    static func run(_ server: Server = Server(), plan: Plan = .securityProfile) async throws -> Run {
        var changed = server
        if plan == .messageSigning { changed.signsMessages = true }
        let server = changed
        var settings = SimulatedProvider.Settings()
        settings.requiresPushedAuthorization = true
        settings.requiresDPoP = true
        settings.requiresDPoPNonce = true
        settings.requiresSignedRequestObject = server.signsMessages
        server.settings(&settings)
        let simulated = try SimulatedProvider(
            settings: settings,
            clients: [
                .privateKeyJWT(id: clientID, publicKeyPEM: clientKey.publicKey.pemRepresentation, redirectURIs: [SimulatedProvider.appRedirectURI])
            ])
        // The suite signs its alternate-algorithm ID token with an RSA key its key set publishes beside its own.
        let alternate = try Self.alternate.get()
        let alternateKeys = try await alternate.transport.send(TransportRequest(method: .get, url: alternate.issuer.appendingPathComponent("jwks")))

        var options = SimulatedProvider.DescriptorOptions()
        options.id = "fapi2-plan"
        options.usesDiscovery = true
        options.pushesAuthorizationRequests = true
        options.bindsTokensWithDPoP = true
        options.clientAuthentication = [.privateKeyJWT]
        options.dpopAlgorithms = [.es256, .ps256]
        if server.signsMessages {
            options.responseMode = .jwt
            options.requestObject = .always
        }
        var descriptor = try simulated.descriptor(options)
        // The Message Signing plan's client claims that profile, which requires the JAR and JARM settings above.
        descriptor.security.profile = server.signsMessages ? .fapi2MessageSigning : .fapi2
        descriptor.security.idTokenAlgs = ["PS256", "ES256"]
        let provider = try descriptor.resolve()

        let resource = ResourceServer(server)
        let edited = ScriptedTransport { request, _ in
            if let intercept = server.intercept, let answer = try await intercept(request) { return answer }
            if request.url.path == accounts.path { return await resource.answer(request) }
            let response = try await simulated.transport.send(request)
            switch request.url.path {
            case "/.well-known/openid-configuration":
                return try rewritten(response) { server.metadata(&$0) }
            case "/jwks" where server.signing == .alternateRS256 || server.publishesAlternateKey:
                return try rewritten(response) { members in
                    guard case let .array(own)? = members["keys"], case let .array(added)? = Self.members(alternateKeys)["keys"] else { return }
                    members["keys"] = .array(own + added)
                }
            case "/token" where response.status == 200:
                var members = Self.members(response)
                if let idToken = members["id_token"]?.stringValue, let change = server.idTokenClaims {
                    var claims = Self.claims(idToken)
                    change(&claims)
                    members["id_token"] = .string(try await sign(claims, server.signing, provider: simulated, alternate: alternate))
                } else if server.signing != .provider, let idToken = members["id_token"]?.stringValue {
                    members["id_token"] = .string(try await sign(Self.claims(idToken), server.signing, provider: simulated, alternate: alternate))
                }
                server.tokenAnswer(&members)
                if let token = members["access_token"]?.stringValue {
                    let refresh = FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
                        .contains { $0.0 == "grant_type" && $0.1 == "refresh_token" }
                    await resource.issue(token, refresh: refresh)
                }
                var changed = response
                changed.body = try JSONEncoder().encode(JSONValue.object(members))
                return changed
            default:
                return response
            }
        }
        let sent = RecordingTransport(edited)
        var environment = simulated.environment
        environment.transport = sent
        var configuration = ClientConfiguration(
            clientID: clientID, redirectURI: SimulatedProvider.appRedirectURI, signingKey: try .init(pem: clientKey.pemRepresentation))
        configuration.grantManagement = server.grantManagement
        let client = OAuthClient(provider: provider, configuration: configuration, environment: environment)
        return Run(simulated: simulated, alternate: alternate, resource: resource, client: client, sent: sent, environment: environment)
    }

    /// `response` with its JSON object changed.
    static func rewritten(_ response: TransportResponse, _ change: (inout [String: JSONValue]) -> Void) throws -> TransportResponse {
        var members = members(response)
        change(&members)
        var changed = response
        changed.body = try JSONEncoder().encode(JSONValue.object(members))
        return changed
    }

    static func sign(_ claims: [String: JSONValue], _ signing: Signing, provider: SimulatedProvider, alternate: SimulatedProvider) async throws
        -> String
    {
        switch signing {
        case .provider: return try await provider.signAuthorizationResponse(claims)
        case .alternateRS256: return try await alternate.signAuthorizationResponse(claims)
        case .none:
            let payload = try JSONEncoder().encode(JSONValue.object(claims))
            return Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(payload) + "."
        }
    }

    /// The JSON object of an answer.
    static func members(_ response: TransportResponse) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: response.body)) ?? [:]
    }

    /// The claims of a compact JWS, unverified.
    static func claims(_ jws: String) -> [String: JSONValue] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return [:] }
        return (try? JSONDecoder().decode([String: JSONValue].self, from: data)) ?? [:]
    }

    /// A sign-in the module expects to succeed, then the call to the accounts resource it expects next.
    static func signsInAndCallsTheResource(_ run: Run) async throws -> OAuthClient.SignInOutcome {
        let (pending, callback) = try await run.callback()
        let outcome = try await run.client.finishSignIn(.callback(callback), pending: pending)
        #expect(outcome.tokens.isDPoPBound)
        #expect(outcome.idToken?.subject == "user-1")
        let answer = try await run.accounts(outcome.tokens)
        #expect(answer.status == 200)
        #expect(await run.resource.answered == 1)
        return outcome
    }

    // MARK: - Modules whose sign-in goes through

    @Test("FAPI2SPFinalClientTestHappyPath: discovery, a pushed request, the code exchanged with DPoP, the resource called", arguments: Plan.allCases)
    func happyPath(_ plan: Plan) async throws {
        let run = try await Self.run(plan: plan)
        let (pending, callback) = try await run.callback()
        // The browser's URL holds the client and the pushed request's URI only; a JARM response, the response JWT only.
        #expect(Set((URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name)) == ["client_id", "request_uri"])
        if plan == .messageSigning {
            #expect(Set((URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name)) == ["response"])
        }
        let outcome = try await run.client.finishSignIn(.callback(callback), pending: pending)
        #expect(outcome.tokens.isDPoPBound)
        #expect(outcome.idToken?.subject == "user-1")
        #expect(try await run.accounts(outcome.tokens).status == 200)
        let pushed = try #require(run.sent.requests.first { $0.url.path == "/par" })
        var fields = Dictionary(
            FormEncoding.decode(String(decoding: pushed.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
        if plan == .messageSigning {
            // The request's parameters travel in the signed request object (JAR); the response came as one JWT (JARM).
            let object = try #require(fields["request"])
            for (name, value) in Self.claims(object) { fields[name] = fields[name] ?? value.stringValue }
        }
        #expect(fields["code_challenge_method"] == "S256")
        // The plan warns about a nonce or state longer than 64 characters or with characters outside the unreserved set.
        for name in ["nonce", "state"] {
            let value = try #require(fields[name])
            #expect(value.count <= 64)
            #expect(value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) })
        }
        #expect(Self.claims(try #require(fields["client_assertion"]))["aud"] == .string(run.simulated.issuer.absoluteString))
        // Discovery first, from the issuer's well-known document.
        #expect(run.sent.requests.first?.url.path == "/.well-known/openid-configuration")
        // The token endpoint and the resource each demanded their nonce once.
        #expect(run.requests(to: "/token").count == 2)
        #expect(run.requests(to: Self.accounts.path).count == 2)
    }

    @Test("FAPI2SPFinalClientTestHappyPathNoDpopNonce: a server that never asks for a DPoP nonce", arguments: Plan.allCases)
    func happyPathNoDpopNonce(_ plan: Plan) async throws {
        let run = try await Self.run(Server(settings: { $0.requiresDPoPNonce = false }, resourceNonce: false), plan: plan)
        _ = try await Self.signsInAndCallsTheResource(run)
        #expect(run.requests(to: "/token").count == 1)
        #expect(run.requests(to: Self.accounts.path).count == 1)
    }

    @Test("FAPI2SPFinalClientTestValidAudAsArray: aud in the ID token as an array of the client alone is taken", arguments: Plan.allCases)
    func validAudAsArray(_ plan: Plan) async throws {
        let run = try await Self.run(Server(idTokenClaims: { $0["aud"] = .array([.string(FAPI2ClientPlanTests.clientID)]) }), plan: plan)
        _ = try await Self.signsInAndCallsTheResource(run)
    }

    @Test("FAPI2SPFinalClientTestTokenEndpointResponseWithoutExpiresIn: a token answer without expires_in is taken", arguments: Plan.allCases)
    func tokenEndpointResponseWithoutExpiresIn(_ plan: Plan) async throws {
        let run = try await Self.run(Server(tokenAnswer: { $0["expires_in"] = nil }), plan: plan)
        let outcome = try await Self.signsInAndCallsTheResource(run)
        #expect(outcome.tokens.expiresAt == nil)
    }

    @Test("FAPI2SPFinalClientTestTokenTypeCaseInsenstivity: token_type in inverted case (dpOp) is DPoP", arguments: Plan.allCases)
    func tokenTypeCaseInsenstivity(_ plan: Plan) async throws {
        let run = try await Self.run(Server(tokenAnswer: { $0["token_type"] = .string("dpOp") }), plan: plan)
        let outcome = try await Self.signsInAndCallsTheResource(run)
        // The plan inverts the case of refresh answers too.
        let refreshed = try await run.client.refresh(outcome.tokens)
        #expect(refreshed.isDPoPBound)
        #expect(try await run.accounts(refreshed).status == 200)
    }

    @Test(
        "FAPI2SPFinalClientTestRSDpopAuthSchemeCaseInsenstivity: the resource's use_dpop_nonce challenge with scheme dPoP", arguments: Plan.allCases)
    func rsDpopAuthSchemeCaseInsenstivity(_ plan: Plan) async throws {
        let run = try await Self.run(Server(resourceScheme: "dPoP"), plan: plan)
        _ = try await Self.signsInAndCallsTheResource(run)
        let calls = run.requests(to: Self.accounts.path)
        #expect(calls.count == 2)
        let retried = try #require(calls.last?.headers.first { $0.key.lowercased() == "dpop" }?.value)
        #expect(Self.claims(retried)["nonce"] == .string(run.resource.nonce))
    }

    @Test("FAPI2SPFinalClientRefreshTokenTest: the resource refuses the access token until two refreshes got new ones", arguments: Plan.allCases)
    func refreshTokenTest(_ plan: Plan) async throws {
        let run = try await Self.run(Server(refreshesBeforeResourceAnswers: 2), plan: plan)
        let (pending, callback) = try await run.callback()
        var tokens = try await run.client.finishSignIn(.callback(callback), pending: pending).tokens
        var refreshes = 0
        var answer = try await run.accounts(tokens)
        // The host's part: a 401 invalid_token answer gets a refresh, and the call again with the new access token.
        while answer.status == 401, refreshes < 3 {
            let previous = tokens.refreshToken?.value
            tokens = try await run.client.refresh(tokens)
            refreshes += 1
            // The server rotates refresh tokens: each refresh spends the one before.
            #expect(tokens.refreshToken?.value != previous)
            answer = try await run.accounts(tokens)
        }
        #expect(answer.status == 200)
        #expect(refreshes == 2)
        #expect(tokens.isDPoPBound)
    }

    // MARK: - Modules whose server lies: the client refuses and calls nothing more

    @Test("FAPI2SPFinalClientTestDiscoveryIssuerMismatch: metadata naming another issuer stops the client after discovery", arguments: Plan.allCases)
    func discoveryIssuerMismatch(_ plan: Plan) async throws {
        let issuer = "https://simulated.example"
        let run = try await Self.run(Server(metadata: { $0["issuer"] = .string(issuer + "INVALID") }), plan: plan)
        let error = try await #require(throws: DiscoveryError.self) { try await run.client.startAuthorization() }
        #expect(error.code == .issuerMismatch)
        #expect(run.sent.requests.map(\.url.path) == ["/.well-known/openid-configuration"])
    }

    /// A module that changes the ID token the token endpoint gives (`AbstractFAPI2SPFinalClientExpectNothingAfterIdTokenIssued`).
    struct IDTokenFault: CustomTestStringConvertible, Sendable {
        /// The module's Java class name.
        let module: String
        /// What the refusal says.
        let says: String
        var change: (@Sendable (inout [String: JSONValue]) -> Void)? = nil
        var signing = Signing.provider
        var testDescription: String { module }
    }

    static let idTokenFaults: [IDTokenFault] = [
        .init(module: "FAPI2SPFinalClientTestInvalidIss", says: "issued by", change: { $0["iss"] = .string(($0["iss"]?.stringValue ?? "") + "1") }),
        .init(
            module: "FAPI2SPFinalClientTestInvalidAud", says: "not this client", change: { $0["aud"] = .string(($0["aud"]?.stringValue ?? "") + "1") }
        ),
        .init(
            module: "FAPI2SPFinalClientTestInvalidSecondaryAud", says: "azp",
            change: { claims in
                let aud = claims["aud"]?.stringValue ?? ""
                claims["aud"] = .array([.string(aud), .string(aud + "1")])
            }),
        .init(module: "FAPI2SPFinalClientTestInvalidNullAlg", says: "algorithm `none` is not allowed", signing: .none),
        .init(module: "FAPI2SPFinalClientTestInvalidAlternateAlg", says: "algorithm `RS256` is not allowed", signing: .alternateRS256),
        .init(
            module: "FAPI2SPFinalClientTestInvalidExpiredExp", says: "expired",
            change: { claims in
                // Six minutes ago, past any allowance for clock skew.
                let issued = claims["iat"]?.numberValue ?? 0
                claims["exp"] = .number(issued - 360)
            }),
        .init(module: "FAPI2SPFinalClientTestInvalidMissingExp", says: "lacks `exp`", change: { $0["exp"] = nil }),
        .init(module: "FAPI2SPFinalClientTestInvalidMissingAud", says: "not this client", change: { $0["aud"] = nil }),
        .init(module: "FAPI2SPFinalClientTestInvalidMissingIss", says: "issued by", change: { $0["iss"] = nil }),
        .init(
            module: "FAPI2SPFinalClientTestInvalidNonce", says: "nonce is not the one sent",
            change: { $0["nonce"] = .string(($0["nonce"]?.stringValue ?? "") + "1") }),
        .init(module: "FAPI2SPFinalClientTestInvalidMissingNonce", says: "no nonce", change: { $0["nonce"] = nil }),
    ]

    @Test("ID token faults: the client refuses the ID token and calls neither userinfo nor the resource", arguments: idTokenFaults, Plan.allCases)
    func idTokenFault(_ fault: IDTokenFault, _ plan: Plan) async throws {
        let run = try await Self.run(Server(idTokenClaims: fault.change, signing: fault.signing), plan: plan)
        let (pending, callback) = try await run.callback()
        let before = run.sent.requests.count
        let error = try await #require(throws: IDTokenError.self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error.description.contains(fault.says), "\(error)")
        // The code was exchanged once (with the nonce retry); nothing after the ID token came.
        let after = run.requests(after: before).map(\.url.path)
        #expect(after.allSatisfy { $0 == "/token" || $0 == "/jwks" }, "\(after)")
        #expect(run.requests(to: "/userinfo").isEmpty)
        #expect(run.requests(to: Self.accounts.path).isEmpty)
    }

    /// A JARM module of the Message Signing plan: the signed authorization response changed, or signed wrongly.
    struct JARMFault: CustomTestStringConvertible, Sendable {
        let module: String
        var change: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        /// How the changed response is signed: `.provider`, `.none` (`alg: none`), or nil for the provider's
        /// signature with one byte changed.
        var signing: Signing? = .provider
        var testDescription: String { module }
    }

    static let jarmFaults: [JARMFault] = [
        .init(module: "FAPI2SPFinalClientTestEnsureJarmWithoutIssFails", change: { $0["iss"] = nil }),
        .init(module: "FAPI2SPFinalClientTestEnsureJarmWithInvalidIssFails", change: { $0["iss"] = .string(($0["iss"]?.stringValue ?? "") + "1") }),
        .init(module: "FAPI2SPFinalClientTestEnsureJarmWithoutAudFails", change: { $0["aud"] = nil }),
        .init(module: "FAPI2SPFinalClientTestEnsureJarmWithInvalidAudFails", change: { $0["aud"] = .string(($0["aud"]?.stringValue ?? "") + "1") }),
        .init(module: "FAPI2SPFinalClientTestEnsureJarmWithoutExpFails", change: { $0["exp"] = nil }),
        .init(
            module: "FAPI2SPFinalClientTestEnsureJarmWithExpiredExpFails",
            change: { claims in
                // Six minutes ago, past any allowance for clock skew.
                let issued = claims["iat"]?.numberValue ?? 0
                claims["exp"] = .number(issued - 360)
            }),
        .init(module: "FAPI2SPFinalClientTestEnsureJarmWithInvalidSigFails", signing: nil),
        .init(module: "FAPI2SPFinalClientTestEnsureJarmSignatureAlgIsNotNone", signing: Signing.none),
        // The two state modules run in the JARM variant too, with the state inside the response JWT.
        .init(
            module: "FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidStateFails",
            change: { $0["state"] = .string(($0["state"]?.stringValue ?? "") + "1") }),
        .init(module: "FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidMissingStateFails", change: { $0["state"] = nil }),
    ]

    @Test("JARM faults (Message Signing plan): the client refuses the response before the code is spent", arguments: jarmFaults)
    func jarmFault(_ fault: JARMFault) async throws {
        let run = try await Self.run(Server(signsMessages: true))
        let simulated = run.simulated
        let (pending, original) = try await run.callback()
        let response = try #require(URLComponents(url: original, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "response" }?.value)
        var claims = Self.claims(response)
        fault.change(&claims)
        let forged: String
        switch fault.signing {
        case nil:
            // The provider's own signature, with its last byte changed.
            let parts = response.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[signature.count - 1] ^= 0x01
            forged = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
        case let signing?:
            forged = try await Self.sign(claims, signing, provider: simulated, alternate: simulated)
        }
        var components = try #require(URLComponents(url: original, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "response", value: forged)]
        let callback = try #require(components.url)
        let before = run.sent.requests.count
        await #expect(throws: (any Error).self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        let after = run.requests(after: before).map(\.url.path)
        #expect(after.allSatisfy { $0 == "/jwks" }, "\(after)")
        #expect(run.requests(to: "/token").isEmpty)
    }

    /// Not a module of the plans, but the JARM counterpart of `FAPI2SPFinalClientTestInvalidAlternateAlg`: FAPI 2.0 signs
    /// every JWS with PS256, ES256 or EdDSA, so a response signed RS256, with a key the provider's key set publishes, is
    /// refused too (the default `authorization.response_algs` lists RS256; the profile narrows it).
    @Test func aJARMResponseSignedWithRS256IsRefusedUnderTheProfile() async throws {
        let run = try await Self.run(Server(signsMessages: true, publishesAlternateKey: true))
        let (pending, original) = try await run.callback()
        let response = try #require(URLComponents(url: original, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "response" }?.value)
        let forged = try await run.alternate.signAuthorizationResponse(Self.claims(response))
        var components = try #require(URLComponents(url: original, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "response", value: forged)]
        let callback = try #require(components.url)
        let error = try await #require(throws: FlowError.self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error.description.contains("RS256"), "\(error)")
        #expect(run.requests(to: "/token").isEmpty)
    }

    /// A module that changes the authorization response (`AbstractFAPI2SPFinalClientExpectNothingAfterAuthorizationResponse`
    /// and the two state modules).
    struct CallbackFault: CustomTestStringConvertible, Sendable {
        let module: String
        /// What the refusal says.
        let says: String
        let change: @Sendable (inout [URLQueryItem]) -> Void
        var testDescription: String { module }
    }

    static func replacing(_ name: String, _ items: inout [URLQueryItem], with value: (String) -> String?) {
        items = items.compactMap { item in
            guard item.name == name else { return item }
            return value(item.value ?? "").map { URLQueryItem(name: name, value: $0) }
        }
    }

    static let callbackFaults: [CallbackFault] = [
        .init(module: "FAPI2SPFinalClientTestInvalidAuthorizationResponseIss", says: "from issuer", change: { replacing("iss", &$0) { $0 + "1" } }),
        .init(module: "FAPI2SPFinalClientTestRemoveAuthorizationResponseIss", says: "no `iss`", change: { replacing("iss", &$0) { _ in nil } }),
        .init(
            module: "FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidStateFails", says: "`state` does not match",
            change: { replacing("state", &$0) { $0 + "1" } }),
        .init(
            module: "FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidMissingStateFails", says: "no `state`",
            change: { replacing("state", &$0) { _ in nil } }),
    ]

    @Test("Authorization response faults: the client refuses the callback before the code is spent", arguments: callbackFaults)
    func callbackFault(_ fault: CallbackFault) async throws {
        let run = try await Self.run()
        let (pending, callback) = try await run.callback(fault.change)
        let before = run.sent.requests.count
        let error = try await #require(throws: FlowError.self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error.description.contains(fault.says), "\(error)")
        #expect(run.requests(after: before).isEmpty, "\(run.requests(after: before).map(\.url.path))")
        #expect(run.requests(to: "/token").isEmpty)
    }
}
