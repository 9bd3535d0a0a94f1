import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The mutual-TLS variants of the OpenID Foundation's FAPI 2.0 relying-party plans (``FAPI2ClientPlanTests`` runs the
/// `private_key_jwt` + DPoP one): `client_auth_type: mtls` (`tls_client_auth`, RFC 8705 §2) with
/// `sender_constrain: mtls` (certificate-bound access tokens, RFC 8705 §3) or `sender_constrain: dpop`.
///
/// The suite's server (`AbstractFAPI2SPFinalClientTest`) publishes its token and pushed request endpoints on a host
/// that asks for the client certificate (`handleHttpMtls`), refuses the plain pushed request endpoint of a client that
/// authenticates with its certificate, and, for certificate-bound tokens, refuses userinfo and the accounts resource
/// on the plain host (`checkMtlsCertificate` at the mutual-TLS one). Each test here asserts that too: what had to go to
/// the mutual-TLS host went there, with the certificate, and nothing of it went to the plain host.
@Suite struct FAPI2ClientPlanMTLSTests {
    typealias Plan = FAPI2ClientPlanTests.Plan
    typealias Server = FAPI2ClientPlanTests.Server
    static let clientID = FAPI2ClientPlanTests.clientID
    /// The key that signs the Message Signing plan's request objects (the client authenticates with its certificate).
    static let requestObjectKey = P256.Signing.PrivateKey()

    /// The suite's `sender_constrain` variant parameter.
    enum SenderConstraint: String, Sendable {
        case mtls, dpop
    }

    /// The suite's `client_auth_type` variant parameter.
    enum ClientAuthType: String, Sendable {
        case mtls
        case privateKeyJWT = "private_key_jwt"
    }

    /// One variant: the plan, how the client authenticates, and how tokens are sender-constrained.
    struct Variant: CustomTestStringConvertible, Sendable {
        let plan: Plan
        let constraint: SenderConstraint
        var clientAuth = ClientAuthType.mtls

        var testDescription: String { "\(plan.rawValue), client_auth_type \(clientAuth.rawValue), sender_constrain \(constraint.rawValue)" }
        var certificateBound: Bool { constraint == .mtls }
        /// Whether the client authenticates with its certificate (else with a `private_key_jwt` assertion, its tokens
        /// bound to the certificate its token requests present: `security.tls_client_certificate_bound_access_tokens`).
        var authenticatesWithCertificate: Bool { clientAuth == .mtls }

        /// `mtls` + `mtls`, `mtls` + `dpop` and `private_key_jwt` + `mtls` (``FAPI2ClientPlanTests`` runs
        /// `private_key_jwt` + `dpop`), in each plan.
        static let all: [Variant] = Plan.allCases.flatMap { plan in
            [
                Variant(plan: plan, constraint: .mtls), Variant(plan: plan, constraint: .dpop),
                Variant(plan: plan, constraint: .mtls, clientAuth: .privateKeyJWT),
            ]
        }
        /// The variants of a module the suite marks `@VariantNotApplicable(parameter = FAPI2SenderConstrainMethod.class,
        /// values = { "mtls" })`.
        static let dpop = all.filter { $0.constraint == .dpop }
    }

    /// The accounts resource with certificate-bound tokens: at the mutual-TLS host, checked by the provider as an API
    /// would (the token, and the certificate it is bound to).
    actor BoundResource {
        let simulated: SimulatedProvider
        let refreshesNeeded: Int
        var refreshes = 0
        var answered = 0

        init(_ simulated: SimulatedProvider, refreshesNeeded: Int) {
            self.simulated = simulated
            self.refreshesNeeded = refreshesNeeded
        }

        func issued(refresh: Bool) {
            if refresh { refreshes += 1 }
        }

        func answer(_ request: TransportRequest) async -> TransportResponse {
            if let refusal = await simulated.protectedResourceRefusal(request) { return refusal }
            if refreshes < refreshesNeeded {
                return TransportResponse(
                    status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token", error_description="refresh first""#],
                    body: Data("{}".utf8))
            }
            answered += 1
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"accounts":[]}"#.utf8))
        }
    }

    /// One module's run in a mutual-TLS variant.
    struct Run {
        let variant: Variant
        let simulated: SimulatedProvider
        let identity: TLSClientIdentity
        let client: OAuthClient
        let sent: RecordingTransport
        let environment: OAuthEnvironment
        /// The accounts resource: on the mutual-TLS host for certificate-bound tokens, else the plain one's.
        let accountsURL: URL
        let bound: BoundResource
        let dpopResource: FAPI2ClientPlanTests.ResourceServer

        func requests(to path: String) -> [TransportRequest] { sent.requests.filter { $0.url.path == path } }
        func requests(after index: Int) -> [TransportRequest] { Array(sent.requests.dropFirst(index)) }

        /// The requests sent to the issuer's (plain) host.
        var plain: [TransportRequest] { sent.requests.filter { $0.url.host == simulated.issuer.host } }

        func callback(_ change: (inout [URLQueryItem]) -> Void = { _ in }) async throws -> (PendingAuthorization, URL) {
            let pending = try await client.startAuthorization()
            let approved = try await simulated.approve(pending.url)
            var components = try #require(URLComponents(url: approved, resolvingAgainstBaseURL: false))
            var items = components.queryItems ?? []
            change(&items)
            components.queryItems = items
            return (pending, try #require(components.url))
        }

        /// A GET of the accounts resource with `tokens`, presenting the certificate when they are bound to it.
        func accounts(_ tokens: TokenSet) async throws -> TransportResponse {
            try await tokens.send(TransportRequest(method: .get, url: accountsURL), environment: environment, clientIdentity: identity)
        }

        /// How many calls the resource answered 200.
        var answered: Int {
            get async { variant.certificateBound ? await bound.answered : await dpopResource.answered }
        }
    }

    /// The suite's FAPI 2.0 server in `variant`, changed as `server` says, and a `tls_client_auth` client of it.
    static func run(_ server: Server = Server(), _ variant: Variant) async throws -> Run {
        let identity = try TLSClientIdentity.simulated(commonName: clientID, organization: "FAPI 2.0 relying party")
        var changed = server
        if variant.plan == .messageSigning { changed.signsMessages = true }
        let server = changed
        var settings = SimulatedProvider.Settings()
        settings.requiresPushedAuthorization = true
        settings.requiresSignedRequestObject = server.signsMessages
        switch variant.constraint {
        case .dpop:
            // GenerateDpopAccessToken: DPoP-bound tokens, not bound to the certificate too.
            settings.requiresDPoP = true
            settings.requiresDPoPNonce = true
            settings.bindsTokensToCertificates = false
        case .mtls:
            // AddTlsCertificateBoundAccessTokensTrueSupportedToServerConfiguration, and no DPoP algorithms published.
            settings.offersDPoP = false
        }
        server.settings(&settings)
        var registered = SimulatedClient.tlsClientAuth(
            id: clientID, subject: .distinguishedName("CN=\(clientID), O=FAPI 2.0 relying party"), redirectURIs: [SimulatedProvider.appRedirectURI])
        registered.publicKeyPEM = requestObjectKey.publicKey.pemRepresentation
        if !variant.authenticatesWithCertificate {
            registered = .privateKeyJWT(
                id: clientID, publicKeyPEM: requestObjectKey.publicKey.pemRepresentation, redirectURIs: [SimulatedProvider.appRedirectURI])
        }
        let simulated = try SimulatedProvider(settings: settings, clients: [registered])
        let alternate = try FAPI2ClientPlanTests.alternate.get()
        let alternateKeys = try await alternate.transport.send(TransportRequest(method: .get, url: alternate.issuer.appendingPathComponent("jwks")))

        var options = SimulatedProvider.DescriptorOptions()
        options.id = "fapi2-plan-mtls"
        options.usesDiscovery = true
        options.pushesAuthorizationRequests = true
        options.clientAuthentication = variant.authenticatesWithCertificate ? [.tlsClientAuth] : [.privateKeyJWT]
        options.bindsTokensWithDPoP = variant.constraint == .dpop
        if variant.constraint == .dpop { options.dpopAlgorithms = [.es256, .ps256] }
        if server.signsMessages {
            options.responseMode = .jwt
            options.requestObject = .always
        }
        var descriptor = try simulated.descriptor(options)
        descriptor.security.profile = server.signsMessages ? .fapi2MessageSigning : .fapi2
        descriptor.security.idTokenAlgs = ["PS256", "ES256"]
        // private_key_jwt + mtls: the provider binds tokens to the certificate the token requests present.
        descriptor.security.tlsClientCertificateBoundAccessTokens = !variant.authenticatesWithCertificate
        let provider = try descriptor.resolve()

        let accountsURL =
            variant.certificateBound ? simulated.mutualTLSBase.appendingPathComponent("accounts") : FAPI2ClientPlanTests.accounts
        let bound = BoundResource(simulated, refreshesNeeded: server.refreshesBeforeResourceAnswers)
        let dpopResource = FAPI2ClientPlanTests.ResourceServer(server)
        let edited = ScriptedTransport { request, _ in
            if request.url.path == accountsURL.path {
                return variant.certificateBound ? await bound.answer(request) : await dpopResource.answer(request)
            }
            let response = try await simulated.transport.send(request)
            switch request.url.path {
            case "/.well-known/openid-configuration":
                return try FAPI2ClientPlanTests.rewritten(response) { server.metadata(&$0) }
            case "/jwks" where server.signing == .alternateRS256 || server.publishesAlternateKey:
                return try FAPI2ClientPlanTests.rewritten(response) { members in
                    guard case let .array(own)? = members["keys"], case let .array(added)? = FAPI2ClientPlanTests.members(alternateKeys)["keys"]
                    else { return }
                    members["keys"] = .array(own + added)
                }
            case "/token" where response.status == 200:
                var members = FAPI2ClientPlanTests.members(response)
                if let idToken = members["id_token"]?.stringValue, server.idTokenClaims != nil || server.signing != .provider {
                    var claims = FAPI2ClientPlanTests.claims(idToken)
                    server.idTokenClaims?(&claims)
                    members["id_token"] = .string(
                        try await FAPI2ClientPlanTests.sign(claims, server.signing, provider: simulated, alternate: alternate))
                }
                server.tokenAnswer(&members)
                if let token = members["access_token"]?.stringValue {
                    let refresh = FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
                        .contains { $0.0 == "grant_type" && $0.1 == "refresh_token" }
                    await dpopResource.issue(token, refresh: refresh)
                    await bound.issued(refresh: refresh)
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
        // The client holds its certificate; under the Message Signing plan (and for private_key_jwt), a key too.
        let signingKey =
            try server.signsMessages || !variant.authenticatesWithCertificate
            ? ClientConfiguration.SigningKey(pem: requestObjectKey.pemRepresentation) : nil
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(
                clientID: clientID, redirectURI: SimulatedProvider.appRedirectURI, signingKey: signingKey, tlsIdentity: identity),
            environment: environment)
        return Run(
            variant: variant, simulated: simulated, identity: identity, client: client, sent: sent, environment: environment,
            accountsURL: accountsURL, bound: bound, dpopResource: dpopResource)
    }

    /// What the suite checks of every request of a mutual-TLS run: the pushed request and every token request went to
    /// the mutual-TLS host with the certificate (`checkMtlsCertificate`), and nothing that must go there went to the
    /// plain host (`handleHttp` refuses `par` for `client_auth_type: mtls`, and `userinfo` and the accounts resource for
    /// `sender_constrain: mtls`; the plain host asks for no certificate, so a token request there fails).
    static func expectMutualTLSRoutes(_ run: Run) {
        let mutualTLSHost = run.simulated.mutualTLSBase.host
        // A private_key_jwt client pushes its request to the plain endpoint, with no certificate (it authenticates with
        // its assertion); its token requests present the certificate the tokens are bound to.
        let certificatePaths = run.variant.authenticatesWithCertificate ? ["/par", "/token"] : ["/token"]
        for request in run.sent.requests where (certificatePaths + ["/userinfo", "/revoke", "/introspect"]).contains(request.url.path) {
            #expect(request.url.host == mutualTLSHost, "\(request.url) goes to its mtls_endpoint_aliases entry")
            #expect(request.clientIdentity == run.identity, "\(request.url) presents the certificate")
        }
        if !run.variant.authenticatesWithCertificate {
            #expect(run.requests(to: "/par").allSatisfy { $0.url.host == run.simulated.issuer.host && $0.clientIdentity == nil })
        }
        let refusedOnPlain = certificatePaths + (run.variant.certificateBound ? ["/userinfo", run.accountsURL.path] : [])
        #expect(run.plain.filter { refusedOnPlain.contains($0.url.path) }.isEmpty, "\(run.plain.map(\.url))")
        // Discovery and the key set are the plain host's, and no certificate goes there. (In the DPoP variant the
        // accounts resource is on the plain host too; the client presents its certificate there, as it does with every
        // token its token request got over mutual TLS, and the suite's plain host asks for none.)
        #expect(run.plain.filter { $0.url.path != run.accountsURL.path }.allSatisfy { $0.clientIdentity == nil })
    }

    /// A sign-in the module expects to succeed, then the call to the accounts resource.
    static func signsInAndCallsTheResource(_ run: Run) async throws -> OAuthClient.SignInOutcome {
        let (pending, callback) = try await run.callback()
        let outcome = try await run.client.finishSignIn(.callback(callback), pending: pending)
        #expect(outcome.idToken?.subject == "user-1")
        // Bound to the certificate the token request presented, and, in the DPoP variant, to the DPoP key.
        #expect(outcome.tokens.certificateThumbprint == run.identity.thumbprint)
        #expect(outcome.tokens.isDPoPBound == !run.variant.certificateBound)
        #expect(try await run.accounts(outcome.tokens).status == 200)
        #expect(await run.answered == 1)
        expectMutualTLSRoutes(run)
        return outcome
    }

    // MARK: - Modules whose sign-in goes through

    @Test("FAPI2SPFinalClientTestHappyPath (mTLS): the pushed request and the code exchange at the mtls aliases", arguments: Variant.all)
    func happyPath(_ variant: Variant) async throws {
        let run = try await Self.run(Server(), variant)
        let (pending, callback) = try await run.callback()
        #expect(Set((URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name)) == ["client_id", "request_uri"])
        #expect(pending.url.host == run.simulated.issuer.host, "the browser goes to the published authorization endpoint")
        let outcome = try await run.client.finishSignIn(.callback(callback), pending: pending)
        #expect(outcome.idToken?.subject == "user-1")
        #expect(outcome.tokens.certificateThumbprint == run.identity.thumbprint)
        #expect(try await run.accounts(outcome.tokens).status == 200)

        let pushed = try #require(run.requests(to: "/par").first)
        #expect(
            pushed.url == (variant.authenticatesWithCertificate ? run.simulated.mutualTLSBase : run.simulated.issuer).appendingPathComponent("par"))
        var fields = Dictionary(FormEncoding.decode(String(decoding: pushed.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
        if variant.plan == .messageSigning {
            let object = try #require(fields["request"])
            for (name, value) in FAPI2ClientPlanTests.claims(object) { fields[name] = fields[name] ?? value.stringValue }
        }
        // Authenticated by its certificate alone: client_id in the body, no assertion, no secret; or by its assertion.
        #expect(fields["client_id"] == Self.clientID)
        #expect((fields["client_assertion"] == nil) == variant.authenticatesWithCertificate && fields["client_secret"] == nil)
        #expect(fields["code_challenge_method"] == "S256")
        for name in ["nonce", "state"] {
            let value = try #require(fields[name])
            #expect(value.count <= 64)
        }
        let token = try #require(run.requests(to: "/token").last)
        #expect(token.url == run.simulated.mutualTLSBase.appendingPathComponent("token"))
        let resource = try #require(run.requests(to: run.accountsURL.path).last)
        #expect(resource.url == run.accountsURL)
        switch variant.constraint {
        case .mtls:
            // One token request and one resource call: no DPoP, no nonces; the token goes as Bearer with its certificate.
            #expect(!outcome.tokens.isDPoPBound)
            #expect(run.requests(to: "/token").count == 1)
            #expect(run.requests(to: run.accountsURL.path).count == 1)
            #expect(resource.clientIdentity == run.identity)
            #expect(resource.headers["Authorization"]?.hasPrefix("Bearer ") == true)
            #expect(run.sent.requests.allSatisfy { request in !request.headers.keys.contains { $0.lowercased() == "dpop" } })
            let metadata = try #require(run.sent.requests.first)
            #expect(metadata.url.path == "/.well-known/openid-configuration")
        case .dpop:
            // The token endpoint and the resource each demanded their DPoP nonce once.
            #expect(outcome.tokens.isDPoPBound)
            #expect(run.requests(to: "/token").count == 2)
            #expect(run.requests(to: run.accountsURL.path).count == 2)
        }
        // Userinfo with the bound token goes to its alias, with the certificate.
        _ = try await run.client.userInfo(outcome.tokens)
        if variant.certificateBound {
            let userinfo = try #require(run.requests(to: "/userinfo").last)
            #expect(userinfo.url == run.simulated.mutualTLSBase.appendingPathComponent("userinfo"))
        }
        Self.expectMutualTLSRoutes(run)
    }

    @Test("FAPI2SPFinalClientTestHappyPathNoDpopNonce (mtls client authentication): no DPoP nonce asked", arguments: Variant.dpop)
    func happyPathNoDpopNonce(_ variant: Variant) async throws {
        var server = Server(settings: { $0.requiresDPoPNonce = false })
        server.resourceNonce = false
        let run = try await Self.run(server, variant)
        _ = try await Self.signsInAndCallsTheResource(run)
        #expect(run.requests(to: "/token").count == 1)
        #expect(run.requests(to: run.accountsURL.path).count == 1)
    }

    @Test("FAPI2SPFinalClientTestValidAudAsArray (mTLS): aud as an array of the client alone is taken", arguments: Variant.all)
    func validAudAsArray(_ variant: Variant) async throws {
        let run = try await Self.run(Server(idTokenClaims: { $0["aud"] = .array([.string(FAPI2ClientPlanTests.clientID)]) }), variant)
        _ = try await Self.signsInAndCallsTheResource(run)
    }

    @Test("FAPI2SPFinalClientTestTokenEndpointResponseWithoutExpiresIn (mTLS): a token answer without expires_in", arguments: Variant.all)
    func tokenEndpointResponseWithoutExpiresIn(_ variant: Variant) async throws {
        let run = try await Self.run(Server(tokenAnswer: { $0["expires_in"] = nil }), variant)
        let outcome = try await Self.signsInAndCallsTheResource(run)
        #expect(outcome.tokens.expiresAt == nil)
    }

    @Test("FAPI2SPFinalClientTestTokenTypeCaseInsenstivity (mTLS): token_type in inverted case", arguments: Variant.all)
    func tokenTypeCaseInsenstivity(_ variant: Variant) async throws {
        // SetTokenResponseTokenTypeToInvertedCase: `Bearer` (GenerateBearerAccessToken) becomes `bEARER`, `DPoP` `dpOp`.
        let inverted = variant.certificateBound ? "bEARER" : "dpOp"
        let run = try await Self.run(Server(tokenAnswer: { $0["token_type"] = .string(inverted) }), variant)
        let outcome = try await Self.signsInAndCallsTheResource(run)
        let refreshed = try await run.client.refresh(outcome.tokens)
        #expect(refreshed.certificateThumbprint == run.identity.thumbprint)
        #expect(refreshed.isDPoPBound == !variant.certificateBound)
        #expect(try await run.accounts(refreshed).status == 200)
        Self.expectMutualTLSRoutes(run)
    }

    @Test(
        "FAPI2SPFinalClientTestRSDpopAuthSchemeCaseInsenstivity (mtls client authentication): the resource's dPoP challenge",
        arguments: Variant.dpop)
    func rsDpopAuthSchemeCaseInsenstivity(_ variant: Variant) async throws {
        let run = try await Self.run(Server(resourceScheme: "dPoP"), variant)
        _ = try await Self.signsInAndCallsTheResource(run)
        let calls = run.requests(to: run.accountsURL.path)
        #expect(calls.count == 2)
        let retried = try #require(calls.last?.headers.first { $0.key.lowercased() == "dpop" }?.value)
        #expect(FAPI2ClientPlanTests.claims(retried)["nonce"] == .string(run.dpopResource.nonce))
    }

    @Test("FAPI2SPFinalClientRefreshTokenTest (mTLS): two refreshes at the token alias before the resource answers", arguments: Variant.all)
    func refreshTokenTest(_ variant: Variant) async throws {
        let run = try await Self.run(Server(refreshesBeforeResourceAnswers: 2), variant)
        let (pending, callback) = try await run.callback()
        var tokens = try await run.client.finishSignIn(.callback(callback), pending: pending).tokens
        var refreshes = 0
        var answer = try await run.accounts(tokens)
        while answer.status == 401, refreshes < 3 {
            let previous = tokens.refreshToken?.value
            tokens = try await run.client.refresh(tokens)
            refreshes += 1
            #expect(tokens.refreshToken?.value != previous)
            answer = try await run.accounts(tokens)
        }
        #expect(answer.status == 200)
        #expect(refreshes == 2)
        #expect(tokens.certificateThumbprint == run.identity.thumbprint)
        Self.expectMutualTLSRoutes(run)
    }

    // MARK: - Modules whose server lies: the client refuses and calls nothing more

    @Test("FAPI2SPFinalClientTestDiscoveryIssuerMismatch (mTLS): the client stops after discovery", arguments: Variant.all)
    func discoveryIssuerMismatch(_ variant: Variant) async throws {
        let issuer = "https://simulated.example"
        let run = try await Self.run(Server(metadata: { $0["issuer"] = .string(issuer + "INVALID") }), variant)
        let error = try await #require(throws: DiscoveryError.self) { try await run.client.startAuthorization() }
        #expect(error.code == .issuerMismatch)
        #expect(run.sent.requests.map(\.url.path) == ["/.well-known/openid-configuration"])
        #expect(run.sent.requests.allSatisfy { $0.clientIdentity == nil })
    }

    @Test(
        "ID token faults (mTLS): the client refuses the ID token and calls neither userinfo nor the resource",
        arguments: FAPI2ClientPlanTests.idTokenFaults, Variant.all)
    func idTokenFault(_ fault: FAPI2ClientPlanTests.IDTokenFault, _ variant: Variant) async throws {
        let run = try await Self.run(Server(idTokenClaims: fault.change, signing: fault.signing), variant)
        let (pending, callback) = try await run.callback()
        let before = run.sent.requests.count
        let error = try await #require(throws: IDTokenError.self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error.description.contains(fault.says), "\(error)")
        let after = run.requests(after: before).map(\.url.path)
        #expect(after.allSatisfy { $0 == "/token" || $0 == "/jwks" }, "\(after)")
        #expect(run.requests(to: "/userinfo").isEmpty)
        #expect(run.requests(to: run.accountsURL.path).isEmpty)
        Self.expectMutualTLSRoutes(run)
    }

    @Test(
        "Authorization response faults (mTLS, Security Profile plan): refused before the code is spent",
        arguments: FAPI2ClientPlanTests.callbackFaults, [SenderConstraint.mtls, .dpop])
    func callbackFault(_ fault: FAPI2ClientPlanTests.CallbackFault, _ constraint: SenderConstraint) async throws {
        let run = try await Self.run(Server(), Variant(plan: .securityProfile, constraint: constraint))
        let (pending, callback) = try await run.callback(fault.change)
        let before = run.sent.requests.count
        let error = try await #require(throws: FlowError.self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error.description.contains(fault.says), "\(error)")
        #expect(run.requests(after: before).isEmpty, "\(run.requests(after: before).map(\.url.path))")
        #expect(run.requests(to: "/token").isEmpty)
        Self.expectMutualTLSRoutes(run)
    }

    @Test(
        "JARM faults (mTLS, Message Signing plan): refused before the code is spent",
        arguments: FAPI2ClientPlanTests.jarmFaults, [SenderConstraint.mtls, .dpop])
    func jarmFault(_ fault: FAPI2ClientPlanTests.JARMFault, _ constraint: SenderConstraint) async throws {
        let run = try await Self.run(Server(), Variant(plan: .messageSigning, constraint: constraint))
        let simulated = run.simulated
        let (pending, original) = try await run.callback()
        let response = try #require(URLComponents(url: original, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "response" }?.value)
        var claims = FAPI2ClientPlanTests.claims(response)
        fault.change(&claims)
        let forged: String
        switch fault.signing {
        case nil:
            let parts = response.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[signature.count - 1] ^= 0x01
            forged = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
        case let signing?:
            forged = try await FAPI2ClientPlanTests.sign(claims, signing, provider: simulated, alternate: simulated)
        }
        var components = try #require(URLComponents(url: original, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "response", value: forged)]
        let callback = try #require(components.url)
        let before = run.sent.requests.count
        await #expect(throws: (any Error).self) { try await run.client.finishSignIn(.callback(callback), pending: pending) }
        let after = run.requests(after: before).map(\.url.path)
        #expect(after.allSatisfy { $0 == "/jwks" }, "\(after)")
        #expect(run.requests(to: "/token").isEmpty)
        Self.expectMutualTLSRoutes(run)
    }
}
