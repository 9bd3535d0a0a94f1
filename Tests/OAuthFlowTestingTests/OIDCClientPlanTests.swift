import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The OpenID Foundation's OpenID Connect relying-party test plans (`OIDCCClientBasicTestPlan`,
/// `OIDCCClientFormPostBasicTestPlan`, `OIDCCClientConfigTestPlan` and `OIDCCClientRefreshTokenProfileTestPlan` in
/// openid-certification/conformance-suite, `openid/client`), reproduced module by module: a simulated provider plays
/// the server each module plays, an `OAuthClient` signs in against it as a host would, and each test asserts what the
/// module asserts: the sign-in goes through and userinfo is called, or the client refuses and calls nothing more.
///
/// The variant reproduced: `response_type=code`, `client_secret_basic`, a static client, plain authorization requests,
/// the provider found through discovery; the response in the query for the Basic, Config and Refresh Token plans and
/// POSTed (`response_mode=form_post`) for the Form Post plan (``Plan``). The suite's server sends no `iss` in the
/// authorization response and does not say it would, so the descriptor keeps the default `iss_parameter: if_present`.
/// This is a reproduction of the public plans, not a certification. Docs/conformance.md lists each module and its result.
@Suite struct OIDCClientPlanTests {
    static let clientID = "oidcc-relying-party"
    static let clientSecret = "oidcc-relying-party-secret-0123456789abcdef"

    /// The plan a module runs in, and so its variant.
    enum Plan: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case basic = "OIDCCClientBasicTestPlan"
        /// The Basic plan's modules with `response_mode=form_post`.
        case formPost = "OIDCCClientFormPostBasicTestPlan"
        case config = "OIDCCClientConfigTestPlan"
        /// Its server also issues refresh tokens (and lists the grant).
        case refreshToken = "OIDCCClientRefreshTokenProfileTestPlan"

        var testDescription: String { rawValue }

        /// The two plans that run the Basic plan's modules.
        static let basicModules: [Plan] = [.basic, .formPost]
    }

    /// How an ID token the provider issued is signed again, after a module changed it.
    enum Signing: Sendable {
        /// With the provider's current key.
        case provider
        /// `alg: none`, no signature (`SignIdTokenWithAlgNone`).
        case none
        /// The provider's signature with one byte changed (`InvalidateIdTokenSignature`).
        case corrupted
    }

    /// The key set the suite's server publishes (`OIDCCGenerateServerJWKs` and two of its variants).
    enum KeySet: Sendable {
        /// Two RSA, two P-256, one secp256k1 and one Ed25519 signing key and a P-256 encryption key, each with a `kid`;
        /// one RSA key signs.
        case standard
        /// One signing key of each of those types, none with a `kid` (`OIDCCGenerateServerJWKsSingleSigningKeyWithNoKeyId`).
        case singleWithoutKeyIDs
        /// Three of each, none with a `kid` (`OIDCCGenerateServerJWKsMultipleSigningsKeyWithNoKeyIds`).
        case multipleWithoutKeyIDs

        /// How many signing keys of each type the set holds.
        var keysPerType: Int {
            switch self {
            case .standard: 2
            case .singleWithoutKeyIDs: 1
            case .multipleWithoutKeyIDs: 3
            }
        }
    }

    /// What one module's server does differently from the suite's honest OpenID provider.
    struct Server: Sendable {
        /// Changes the discovery document, after it was made the suite's.
        var metadata: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        /// Changes the claims of the ID token the code is exchanged for; nil leaves it as issued.
        var idTokenClaims: (@Sendable (inout [String: JSONValue]) -> Void)? = nil
        /// Changes the claims of the ID token a refresh gives; nil leaves it as issued.
        var refreshedIDTokenClaims: (@Sendable (inout [String: JSONValue]) -> Void)? = nil
        var signing = Signing.provider
        var keySet = KeySet.standard
        /// Changes each userinfo answer.
        var userinfo: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        /// Appended to the key set's path (`AddRandomJwksUriToServerConfiguration`); the plain path is then not found.
        var jwksSuffix = ""
        /// Replace the whole key set just before the ID token is signed (`OIDCCClientTestSigningKeyRotationJustBeforeSigning`).
        var rotatesKeysBeforeSigning = false
    }

    /// The callback the browser brings back: a redirect, or the form `response_mode=form_post` has it POST.
    enum Callback {
        case redirect(URL)
        case formPost(Data)
    }

    /// One module's run: its server, a client of it, every request the client sent.
    struct Run {
        let simulated: SimulatedProvider
        let client: OAuthClient
        let sent: RecordingTransport
        let plan: Plan
        /// The path of the key set the discovery document names.
        let jwksPath: String

        func requests(to path: String) -> [TransportRequest] { sent.requests.filter { $0.url.path == path } }

        /// The paths of the requests sent after the `index`th one.
        func paths(after index: Int) -> [String] { sent.requests.dropFirst(index).map(\.url.path) }

        /// Starts a sign-in and has the simulated user approve it; the answer, as the suite's server sends it (no `iss`),
        /// comes in the query or, for the Form Post plan, in a POSTed form.
        func approve() async throws -> (PendingAuthorization, Callback) {
            let pending = try await client.startAuthorization()
            if plan == .formPost {
                let (_, body) = try await simulated.approveWithPost(pending.url)
                let fields = FormEncoding.decode(String(decoding: body, as: UTF8.self)).filter { $0.0 != "iss" }
                return (pending, .formPost(Data(FormEncoding.encode(fields).utf8)))
            }
            let approved = try await simulated.approve(pending.url)
            var components = try #require(URLComponents(url: approved, resolvingAgainstBaseURL: false))
            components.queryItems = components.queryItems?.filter { $0.name != "iss" }
            return (pending, .redirect(try #require(components.url)))
        }

        func finish(_ pending: PendingAuthorization, _ callback: Callback) async throws -> OAuthClient.SignInOutcome {
            switch callback {
            case let .redirect(url): try await client.finishSignIn(.callback(url), pending: pending)
            case let .formPost(body): try await client.finishSignIn(.formPost(body), pending: pending)
            }
        }

        /// A sign-in the module expects to go through, then the userinfo request it waits for; checks that request as
        /// the suite does (`OIDCCExtractBearerAccessTokenFromRequest`, `RequireBearerAccessToken`).
        func signInAndCallUserinfo() async throws -> (OAuthClient.SignInOutcome, [String: JSONValue]) {
            let (pending, callback) = try await approve()
            let outcome = try await finish(pending, callback)
            #expect(outcome.idToken?.subject == "user-1")
            let claims = try await client.userInfo(outcome.tokens)
            #expect(claims["sub"] == .string("user-1"))
            let request = try #require(requests(to: "/userinfo").last)
            #expect(request.headers["Authorization"] == "Bearer " + outcome.tokens.accessToken.value)
            #expect(Simulation.query(request.url)["access_token"] == nil)
            return (outcome, claims)
        }
    }

    /// A provider set up as the suite's OpenID provider for `plan` (RS256 ID tokens, `client_secret_basic`, no `iss` in
    /// the authorization response), changed as `server` says, and a client of it.
    static func run(_ server: Server = Server(), plan: Plan = .basic) async throws -> Run {
        var settings = SimulatedProvider.Settings()
        // The suite signs with the first key of its set, an RSA one: RS256.
        settings.signingAlgorithm = .rs256
        settings.issuesRefreshTokens = plan == .refreshToken
        settings.publishesKeyIDs = server.keySet == .standard
        let simulated = try SimulatedProvider(
            settings: settings,
            clients: [.confidential(id: clientID, secret: clientSecret, redirectURIs: [SimulatedProvider.appRedirectURI])])
        // Its own RSA keys: the one that signs and those beside it; the set's other keys are added below.
        for _ in 1..<server.keySet.keysPerType { try await simulated.rotateKeys() }
        let otherKeys = Self.otherKeys(server.keySet)

        var options = SimulatedProvider.DescriptorOptions()
        options.id = "oidcc-plan"
        options.usesDiscovery = true
        options.clientAuthentication = [.clientSecretBasic]
        options.responseMode = plan == .formPost ? .formPost : .query
        options.scopes = plan == .refreshToken ? ["openid", "profile", "email", "offline_access"] : ["openid", "profile", "email"]
        var descriptor = try simulated.descriptor(options)
        // The host's descriptor for a provider that neither sends `iss` nor says it would (RFC 9207): the default.
        descriptor.security.issParameter = .ifPresent
        let provider = try descriptor.resolve()

        let issuer = simulated.issuer.absoluteString
        let jwksPath = "/jwks" + server.jwksSuffix
        let edited = ScriptedTransport { request, _ in
            let path = request.url.path
            if path == "/jwks", !server.jwksSuffix.isEmpty {
                return TransportResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Data("not found".utf8))
            }
            if path == jwksPath {
                let own = try await simulated.transport.send(TransportRequest(method: .get, url: simulated.issuer.appendingPathComponent("jwks")))
                return try rewritten(own) { members in
                    guard case let .array(keys)? = members["keys"] else { return }
                    members["keys"] = .array(keys + otherKeys)
                }
            }
            if path == "/token", server.rotatesKeysBeforeSigning, Self.form(request)["grant_type"] == "authorization_code" {
                // A new key set, none of whose keys the client has seen, just before the ID token is signed.
                try await simulated.rotateKeys(retiringPrevious: true)
                try await simulated.rotateKeys()
            }
            let response = try await simulated.transport.send(request)
            switch path {
            case "/.well-known/openid-configuration":
                return try rewritten(response) { members in
                    members = suiteMetadata(members, plan: plan, jwksURI: issuer + jwksPath)
                    server.metadata(&members)
                }
            case "/token" where response.status == 200:
                let refreshing = Self.form(request)["grant_type"] == "refresh_token"
                let change = refreshing ? server.refreshedIDTokenClaims : server.idTokenClaims
                let signing = refreshing ? Signing.provider : server.signing
                var members = Self.members(response)
                guard let idToken = members["id_token"]?.stringValue, change != nil || signing != .provider else { return response }
                var claims = Self.claims(idToken)
                change?(&claims)
                members["id_token"] = .string(try await sign(claims, signing, provider: simulated))
                var changed = response
                changed.body = try JSONEncoder().encode(JSONValue.object(members))
                return changed
            case "/userinfo" where response.status == 200:
                return try rewritten(response) { server.userinfo(&$0) }
            default:
                return response
            }
        }
        let sent = RecordingTransport(edited)
        var environment = simulated.environment
        environment.transport = sent
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(
                clientID: clientID, redirectURI: SimulatedProvider.appRedirectURI, clientSecret: Secret(clientSecret),
                requestOfflineAccess: plan == .refreshToken),
            environment: environment)
        return Run(simulated: simulated, client: client, sent: sent, plan: plan, jwksPath: jwksPath)
    }

    /// The discovery document of the suite's server (`OIDCCGenerateServerConfiguration` with
    /// `SetTokenEndpointAuthMethodsSupportedToClientSecretBasicOnly`): the simulated provider's endpoints, and what the
    /// suite's says beside them; nothing about PAR, DPoP or the `iss` parameter.
    static func suiteMetadata(_ simulated: [String: JSONValue], plan: Plan, jwksURI: String) -> [String: JSONValue] {
        func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
        var document: [String: JSONValue] = [:]
        for name in ["issuer", "authorization_endpoint", "token_endpoint", "userinfo_endpoint"] { document[name] = simulated[name] }
        let issuer = simulated["issuer"]?.stringValue ?? ""
        document["jwks_uri"] = .string(jwksURI)
        document["registration_endpoint"] = .string(issuer + "/register")
        document["scopes_supported"] = strings(["openid", "phone", "profile", "email", "address", "offline_access"])
        document["response_types_supported"] = strings([
            "code", "id_token code", "token code id_token", "id_token", "token id_token", "token code", "token",
        ])
        document["response_modes_supported"] = strings(["query", "fragment", "form_post"])
        document["token_endpoint_auth_methods_supported"] = strings(["client_secret_basic"])
        document["grant_types_supported"] = strings(["authorization_code", "implicit"] + (plan == .refreshToken ? ["refresh_token"] : []))
        document["id_token_signing_alg_values_supported"] = strings([
            "none", "RS256", "RS384", "RS512", "ES256", "ES256K", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA",
        ])
        document["subject_types_supported"] = strings(["public", "pairwise"])
        document["claims_parameter_supported"] = .bool(true)
        document["claim_types_supported"] = strings(["normal", "aggregated", "distributed"])
        return document
    }

    /// The keys of the suite's set beside the RSA ones the simulated provider holds: P-256, secp256k1 and Ed25519 signing
    /// keys, and, in the standard set, a P-256 encryption key. Only the RSA key signs; the client must pass over these.
    static func otherKeys(_ set: KeySet) -> [JSONValue] {
        let named = set == .standard
        func key(_ members: [String: String], use: String = "sig") -> JSONValue {
            var members = members
            members["use"] = use
            if named || use == "enc" { members["kid"] = UUID().uuidString }
            return .object(members.mapValues { .string($0) })
        }
        func p256() -> [String: String] {
            let point = P256.Signing.PrivateKey().publicKey.rawRepresentation
            return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(point.prefix(32)), "y": Base64URL.encode(point.suffix(32))]
        }
        // The curve's base point: a valid secp256k1 public key, with no secp256k1 arithmetic in the test.
        let secp256k1 = [
            "kty": "EC", "crv": "secp256k1", "x": "eb5mfvncu6xVoGKVzocLBwKb_NstzijZWfKBWxb4F5g", "y": "SDradyajxGVdpPv8DhEIqP0XtEimhVQZnEfQj_sQ1Lg",
        ]
        var keys: [JSONValue] = []
        for _ in 0..<set.keysPerType {
            keys.append(key(p256()))
            let ed25519 = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation
            keys.append(key(["kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(ed25519)]))
        }
        for _ in 0..<(set == .standard ? 1 : set.keysPerType) { keys.append(key(secp256k1)) }
        var encryption = p256()
        encryption["alg"] = "ECDH-ES"
        keys.append(key(encryption, use: "enc"))
        return keys
    }

    static func sign(_ claims: [String: JSONValue], _ signing: Signing, provider: SimulatedProvider) async throws -> String {
        switch signing {
        case .provider:
            return try await provider.signAuthorizationResponse(claims)
        case .corrupted:
            let parts = try await provider.signAuthorizationResponse(claims).split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[signature.count / 2] ^= 0x01
            return parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
        case .none:
            // No at_hash: the suite computes none for an unsigned token.
            var unsigned = claims
            unsigned["at_hash"] = nil
            let payload = try JSONEncoder().encode(JSONValue.object(unsigned))
            return Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(payload) + "."
        }
    }

    /// `response` with its JSON object changed.
    static func rewritten(_ response: TransportResponse, _ change: (inout [String: JSONValue]) -> Void) throws -> TransportResponse {
        var members = members(response)
        change(&members)
        var changed = response
        changed.body = try JSONEncoder().encode(JSONValue.object(members))
        return changed
    }

    /// The JSON object of an answer.
    static func members(_ response: TransportResponse) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: response.body)) ?? [:]
    }

    /// The claims of a compact JWS, unverified.
    static func claims(_ jws: String) -> [String: JSONValue] { Simulation.claims(jws) }

    /// The form fields of a request body.
    static func form(_ request: TransportRequest) -> [String: String] {
        Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
    }

    /// The JOSE header of the ID token a sign-in or refresh gave.
    static func idTokenHeader(_ tokens: TokenSet) throws -> [String: JSONValue] {
        header(try #require(tokens.idToken?.value))
    }

    /// The header of a compact JWS, unverified.
    static func header(_ jws: String) -> [String: JSONValue] {
        guard let first = jws.split(separator: ".").first, let data = Base64URL.decode(String(first)) else { return [:] }
        return (try? JSONDecoder().decode([String: JSONValue].self, from: data)) ?? [:]
    }

    // MARK: - Basic (and Form Post) plan: modules whose sign-in goes through

    @Test("OIDCCClientTest: the code flow, the ID token checked, userinfo called", arguments: Plan.basicModules)
    func clientTest(_ plan: Plan) async throws {
        let run = try await Self.run(plan: plan)
        let (pending, callback) = try await run.approve()
        let query = Simulation.query(pending.url)
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == Self.clientID)
        #expect(query["redirect_uri"] == SimulatedProvider.appRedirectURI.absoluteString)
        #expect(query["scope"]?.split(separator: " ").contains("openid") == true)
        #expect(query["response_mode"] == (plan == .formPost ? "form_post" : nil))
        // The suite warns about a nonce longer than 43 characters or with characters outside the unreserved set.
        let nonce = try #require(query["nonce"])
        #expect(nonce.count <= 43)
        #expect(nonce.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) })
        if case let .formPost(body) = callback {
            #expect(Set(FormEncoding.decode(String(decoding: body, as: UTF8.self)).map(\.0)) == ["code", "state"])
        }
        let outcome = try await run.finish(pending, callback)
        #expect(outcome.idToken?.subject == "user-1")
        #expect(try await run.client.userInfo(outcome.tokens)["sub"] == .string("user-1"))
        #expect(run.sent.requests.first?.url.path == "/.well-known/openid-configuration")
        #expect(run.requests(to: "/userinfo").count == 1)
    }

    @Test("OIDCCClientTestKidAbsentSingleJwks: one RSA key without kid verifies the ID token", arguments: Plan.basicModules)
    func kidAbsentSingleJwks(_ plan: Plan) async throws {
        let run = try await Self.run(Server(keySet: .singleWithoutKeyIDs), plan: plan)
        let (outcome, _) = try await run.signInAndCallUserinfo()
        let idToken = try #require(outcome.tokens.idToken?.value)
        #expect(Self.header(idToken)["kid"] == nil)
        #expect(Self.header(idToken)["alg"] == .string("RS256"))
    }

    @Test(
        "OIDCCClientTestKidAbsentMultipleMatchingKeysInJwks: three RSA keys without kid; the client tries them and accepts",
        arguments: Plan.basicModules)
    func kidAbsentMultipleMatchingKeysInJwks(_ plan: Plan) async throws {
        let run = try await Self.run(Server(keySet: .multipleWithoutKeyIDs), plan: plan)
        // The module accepts either a refusal or a sign-in; OAuthFlow tries each key that fits, and one verifies.
        let (outcome, _) = try await run.signInAndCallUserinfo()
        #expect(try Self.idTokenHeader(outcome.tokens)["kid"] == nil)
        let keys = Self.members(
            try await run.simulated.transport.send(TransportRequest(method: .get, url: run.simulated.issuer.appendingPathComponent("jwks"))))
        guard case let .array(published)? = keys["keys"] else {
            Issue.record("no key set: \(keys)")
            return
        }
        #expect(published.count == 3)
    }

    @Test("OIDCCClientTestIdTokenSignedUsingRS256: an RS256 ID token, the only algorithm listed, is accepted", arguments: Plan.basicModules)
    func idTokenSignedUsingRS256(_ plan: Plan) async throws {
        let run = try await Self.run(Server(metadata: { $0["id_token_signing_alg_values_supported"] = .array([.string("RS256")]) }), plan: plan)
        let (outcome, _) = try await run.signInAndCallUserinfo()
        #expect(try Self.idTokenHeader(outcome.tokens)["alg"] == .string("RS256"))
    }

    @Test("OIDCCClientTestScopeUserInfoClaims: claims asked for with scope values come from userinfo", arguments: Plan.basicModules)
    func scopeUserInfoClaims(_ plan: Plan) async throws {
        let run = try await Self.run(plan: plan)
        let (pending, callback) = try await run.approve()
        let scopes = Set(Simulation.query(pending.url)["scope"]?.split(separator: " ").map(String.init) ?? [])
        // EnsureScopeContainsAtLeastOneOfProfileEmailPhoneAddress.
        #expect(!scopes.isDisjoint(with: ["profile", "email", "phone", "address"]))
        let outcome = try await run.finish(pending, callback)
        // The claims those scopes release come from userinfo (FilterUserInfoForScopes).
        let claims = try await run.client.userInfo(outcome.tokens)
        #expect(claims["email"] == .string("user-1@simulated.example"))
        #expect(claims["name"] == .string("User user-1"))
    }

    @Test("OIDCCClientTestClientSecretBasic: the token request authenticates with client_secret_basic", arguments: Plan.basicModules)
    func clientSecretBasic(_ plan: Plan) async throws {
        let run = try await Self.run(plan: plan)
        _ = try await run.signInAndCallUserinfo()
        let token = try #require(run.requests(to: "/token").first)
        let expected = Data("\(Self.clientID):\(Self.clientSecret)".utf8).base64EncodedString()
        #expect(token.headers["Authorization"] == "Basic " + expected)
        let fields = Self.form(token)
        #expect(fields["client_secret"] == nil)
        #expect(fields["grant_type"] == "authorization_code")
    }

    // MARK: - Modules whose server lies: the client refuses the ID token and calls nothing more

    /// A module that changes the ID token the code is exchanged for
    /// (`AbstractOIDCCClientTestExpectingNothingInvalidIdToken`, and the unsigned token of `OIDCCClientTestIdTokenSigAlgNone`).
    struct IDTokenFault: CustomTestStringConvertible, Sendable {
        /// The module's Java class name.
        let module: String
        /// What the refusal says.
        let says: String
        var change: (@Sendable (inout [String: JSONValue]) -> Void)? = nil
        var signing = Signing.provider
        var metadata: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
        var testDescription: String { module }
    }

    static let idTokenFaults: [IDTokenFault] = [
        .init(
            module: "OIDCCClientTestInvalidIssuerInIdToken", says: "issued by", change: { $0["iss"] = .string(($0["iss"]?.stringValue ?? "") + "1") }),
        .init(module: "OIDCCClientTestMissingSubInIdToken", says: "no `sub`", change: { $0["sub"] = nil }),
        .init(
            module: "OIDCCClientTestInvalidAudInIdToken", says: "not this client",
            change: { $0["aud"] = .string(($0["aud"]?.stringValue ?? "") + "1") }),
        .init(module: "OIDCCClientTestMissingIatInIdToken", says: "lacks `iat`", change: { $0["iat"] = nil }),
        .init(
            module: "OIDCCClientTestInvalidIdTokenSignatureWithRS256", says: "does not verify (RS256)", signing: .corrupted,
            metadata: { $0["id_token_signing_alg_values_supported"] = .array([.string("RS256")]) }),
        .init(
            module: "OIDCCClientTestNonceInvalid", says: "nonce is not the one sent",
            change: { $0["nonce"] = .string(($0["nonce"]?.stringValue ?? "") + "1") }),
    ]

    @Test("ID token faults: the client refuses the ID token and does not call userinfo", arguments: idTokenFaults, Plan.basicModules)
    func idTokenFault(_ fault: IDTokenFault, _ plan: Plan) async throws {
        let run = try await Self.run(Server(metadata: fault.metadata, idTokenClaims: fault.change, signing: fault.signing), plan: plan)
        let (pending, callback) = try await run.approve()
        let before = run.sent.requests.count
        let error = try await #require(throws: IDTokenError.self) { try await run.finish(pending, callback) }
        #expect(error.description.contains(fault.says), "\(error)")
        // The code was exchanged once; nothing but the key set was fetched after the ID token came.
        let after = run.paths(after: before)
        #expect(after.filter { $0 == "/token" }.count == 1)
        #expect(after.allSatisfy { $0 == "/token" || $0 == run.jwksPath }, "\(after)")
        #expect(run.requests(to: "/userinfo").isEmpty)
    }

    @Test(
        "OIDCCClientTestIdTokenSigAlgNone: an unsigned ID token (alg none) is refused; the module accepts a refusal",
        arguments: Plan.basicModules + [.config])
    func idTokenSigAlgNone(_ plan: Plan) async throws {
        // The suite lists `none` first in id_token_signing_alg_values_supported, and signs with it in this module.
        let run = try await Self.run(Server(signing: .none), plan: plan)
        let (pending, callback) = try await run.approve()
        let before = run.sent.requests.count
        let error = try await #require(throws: IDTokenError.self) { try await run.finish(pending, callback) }
        #expect(error.description.contains("algorithm `none` is not allowed"), "\(error)")
        #expect(run.paths(after: before) == ["/token"])
        #expect(run.requests(to: "/userinfo").isEmpty)
    }

    @Test("OIDCCClientTestInvalidSubInUserinfoResponse: userinfo about another subject is refused", arguments: Plan.basicModules)
    func invalidSubInUserinfoResponse(_ plan: Plan) async throws {
        let run = try await Self.run(Server(userinfo: { $0["sub"] = .string(($0["sub"]?.stringValue ?? "") + "invalid") }), plan: plan)
        let (pending, callback) = try await run.approve()
        let outcome = try await run.finish(pending, callback)
        let error = try await #require(throws: IDTokenError.self) { try await run.client.userInfo(outcome.tokens) }
        #expect(error.description.contains("user-1invalid"), "\(error)")
        // Nor does the profile, which reads userinfo, take it.
        await #expect(throws: IDTokenError.self) {
            try await run.client.profile(outcome.tokens, idToken: outcome.idToken?.all)
        }
    }

    // MARK: - Config plan

    @Test("OIDCCClientTestDiscoveryOpenIDConfiguration: the endpoints come from the discovery document")
    func discoveryOpenIDConfiguration() async throws {
        let run = try await Self.run(plan: .config)
        _ = try await run.signInAndCallUserinfo()
        let paths = run.sent.requests.map(\.url.path)
        #expect(paths.first == "/.well-known/openid-configuration")
        // Discovery runs once per client; the token, key set and userinfo requests go where the document says.
        #expect(paths.filter { $0 == "/.well-known/openid-configuration" }.count == 1)
        #expect(Set(paths) == ["/.well-known/openid-configuration", "/token", "/jwks", "/userinfo"])
    }

    @Test("OIDCCClientTestDiscoveryJwksUriKeys: the key set is fetched from the jwks_uri discovery names, after discovery")
    func discoveryJwksUriKeys() async throws {
        let suffix = String(UUID().uuidString.filter(\.isLetter).prefix(10))
        let run = try await Self.run(Server(jwksSuffix: suffix), plan: .config)
        _ = try await run.signInAndCallUserinfo()
        let paths = run.sent.requests.map(\.url.path)
        #expect(!paths.contains("/jwks"))
        let discovery = try #require(paths.firstIndex(of: "/.well-known/openid-configuration"))
        let keys = try #require(paths.firstIndex(of: "/jwks" + suffix))
        let userinfo = try #require(paths.firstIndex(of: "/userinfo"))
        #expect(discovery < keys && keys < userinfo)
    }

    @Test("OIDCCClientTestDiscoveryIssuerMismatch: a discovery document naming another issuer stops the client")
    func discoveryIssuerMismatch() async throws {
        let run = try await Self.run(Server(metadata: { $0["issuer"] = .string(($0["issuer"]?.stringValue ?? "") + "INVALID") }), plan: .config)
        let error = try await #require(throws: DiscoveryError.self) { try await run.client.startAuthorization() }
        #expect(error.code == .issuerMismatch)
        #expect(run.sent.requests.map(\.url.path) == ["/.well-known/openid-configuration"])
    }

    @Test("OIDCCClientTestSigningKeyRotationJustBeforeSigning: the key set is replaced just before the ID token is signed")
    func signingKeyRotationJustBeforeSigning() async throws {
        let run = try await Self.run(Server(rotatesKeysBeforeSigning: true), plan: .config)
        let (outcome, _) = try await run.signInAndCallUserinfo()
        let kid = try #require(Self.idTokenHeader(outcome.tokens)["kid"]?.stringValue)
        #expect(kid == (await run.simulated.currentKeyID))
    }

    @Test("OIDCCClientTestSigningKeyRotation: keys rotated between two sign-ins; the client fetches the key set again")
    func signingKeyRotation() async throws {
        let run = try await Self.run(plan: .config)
        let (first, _) = try await run.signInAndCallUserinfo()
        #expect(run.requests(to: "/jwks").count == 1)
        // The second authorization request comes to a server with a new key set, none of whose keys the client knows.
        let (pending, callback) = try await run.approve()
        try await run.simulated.rotateKeys(retiringPrevious: true)
        try await run.simulated.rotateKeys()
        let before = run.sent.requests.count
        // The code is exchanged after the rotation, so the second ID token is signed with a new key.
        let second = try await run.finish(pending, callback)
        #expect(try Self.idTokenHeader(second.tokens)["kid"] != (try Self.idTokenHeader(first.tokens))["kid"])
        #expect(run.paths(after: before) == ["/token", "/jwks"])
        #expect(try await run.client.userInfo(second.tokens)["sub"] == .string("user-1"))
        #expect(run.requests(to: "/jwks").count == 2)
        #expect(run.requests(to: "/userinfo").count == 2)
    }

    // MARK: - Refresh Token plan

    @Test("OIDCCClientTestRefreshToken: a refresh gives a new access token, with which userinfo is called")
    func refreshToken() async throws {
        let run = try await Self.run(plan: .refreshToken)
        let (outcome, _) = try await run.signInAndCallUserinfo()
        let refreshed = try await run.client.refresh(outcome.tokens)
        #expect(refreshed.accessToken != outcome.tokens.accessToken)
        let refresh = try #require(run.requests(to: "/token").last)
        #expect(Self.form(refresh)["grant_type"] == "refresh_token")
        #expect(Self.form(refresh)["refresh_token"] == outcome.tokens.refreshToken?.value)
        // EnsureScopeInRefreshRequestContainsNoMoreThanOriginallyGranted: no scope, or none beyond those granted.
        #expect(Self.form(refresh)["scope"] == nil)
        #expect(try await run.client.userInfo(refreshed)["sub"] == .string("user-1"))
        #expect(run.requests(to: "/userinfo").last?.headers["Authorization"] == "Bearer " + refreshed.accessToken.value)
    }

    /// A module that changes the ID token a refresh gives (`AbstractOIDCCClientTestExpectingNothingAfterRefreshResponse`).
    struct RefreshFault: CustomTestStringConvertible, Sendable {
        let module: String
        let says: String
        let change: @Sendable (inout [String: JSONValue]) -> Void
        var testDescription: String { module }
    }

    static let refreshFaults: [RefreshFault] = [
        .init(
            module: "OIDCCClientTestRefreshTokenInvalidIssuer", says: "issued by",
            change: { $0["iss"] = .string(($0["iss"]?.stringValue ?? "") + "1") }),
        .init(
            module: "OIDCCClientTestRefreshTokenInvalidSub", says: "not `user-1`",
            change: { $0["sub"] = .string(($0["sub"]?.stringValue ?? "") + "1") }
        ),
    ]

    @Test("Refresh faults: the client refuses the refreshed ID token and does not call userinfo after", arguments: refreshFaults)
    func refreshFault(_ fault: RefreshFault) async throws {
        let run = try await Self.run(Server(refreshedIDTokenClaims: fault.change), plan: .refreshToken)
        // Userinfo before the refresh is allowed.
        let (outcome, _) = try await run.signInAndCallUserinfo()
        let before = run.sent.requests.count
        let error = try await #require(throws: IDTokenError.self) { try await run.client.refresh(outcome.tokens) }
        #expect(error.description.contains(fault.says), "\(error)")
        let after = run.paths(after: before)
        #expect(after.allSatisfy { $0 == "/token" || $0 == run.jwksPath }, "\(after)")
        #expect(after.filter { $0 == "/token" }.count == 1)
    }

    // MARK: - The simulated provider's key set without key IDs

    @Test func aProviderWithoutKeyIDsPublishesAndSignsWithNone() async throws {
        var settings = SimulatedProvider.Settings()
        settings.publishesKeyIDs = false
        let simulated = try SimulatedProvider(settings: settings)
        try await simulated.rotateKeys()
        let keys = Self.members(
            try await simulated.transport.send(TransportRequest(method: .get, url: simulated.issuer.appendingPathComponent("jwks"))))
        guard case let .array(published)? = keys["keys"] else {
            Issue.record("no key set: \(keys)")
            return
        }
        #expect(published.count == 2)
        #expect(published.allSatisfy { if case let .object(members) = $0 { members["kid"] == nil } else { false } })
        let tokens = try await Simulation.signIn(try Simulation.appClient(simulated), at: simulated)
        #expect(try Self.idTokenHeader(tokens.tokens)["kid"] == nil)
        #expect(tokens.idToken?.subject == "user-1")
    }
}
