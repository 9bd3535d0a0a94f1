import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

import OAuthFlowLoopback

/// Sign-in under `security.profile: fapi2` and `fapi2_message_signing` against a real server: idpyoidc behind the PAR
/// server's front (Tests/PARServer), which adds the FAPI 2.0 pieces idpyoidc 5.0.0 lacks (signed request objects at
/// the PAR endpoint, JWT-secured responses, PS256). The client authenticates with `private_key_jwt`, pushes every
/// request, binds its tokens with DPoP under the token endpoint's nonce, and calls a resource that demands its own
/// nonce; under Message Signing the pushed request is a signed request object and the answer a signed JWT.
@Suite(.enabled(if: TestPARServer.shouldRun, TestPARServer.skipReason))
struct FAPI2EndToEndTests {
    let server: TestPARServer
    let directory: URL

    init() throws {
        server = try TestPARServer.require()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fapi2-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The descriptor a newcomer writes for a FAPI 2.0 provider, as Docs/pushed-and-dpop.md shows it.
    func descriptor(messageSigning: Bool) -> TestDescriptor {
        server.descriptor(
            id: messageSigning ? "fapi2-ms" : "fapi2", methods: ["private_key_jwt"], pushed: "always",
            authorization: messageSigning ? ["request_object: always", "response_mode: jwt"] : [],
            security: [
                "profile: \(messageSigning ? "fapi2_message_signing" : "fapi2")", "id_token_algs: [PS256, ES256]", "dpop: required",
            ])
    }

    func settings(_ client: TestPARServer.Client) throws -> ClientSettings {
        let pem = try #require(client.privateKeyPEM, "the server made no key for \(client.clientID)")
        return ClientSettings(
            clientID: client.clientID, authMethod: .privateKeyJWT, signingKey: try ClientConfiguration.SigningKey(pem: pem, keyID: client.keyID))
    }

    func signIn(
        client name: String, messageSigning: Bool, recording: RecordingTransport
    ) async throws -> (SignInResult, Provider, ClientConfiguration, FileTokenStore) {
        let client = try server.client(name)
        let environment = OAuthEnvironment(transport: recording)
        let provider = try await descriptor(messageSigning: messageSigning).provider().discovered(with: DiscoveryClient(transport: recording))
        let store = FileTokenStore(directory: directory)
        let settings = try settings(client)
        let result = try await LoopbackSignIn(store: store, browser: FollowingBrowser(), environment: environment).signIn(
            to: provider, settings: settings, timeout: .seconds(30))
        return (result, provider, settings.configuration(redirectURI: result.session.redirectURI), store)
    }

    func count(_ stats: [String: JSONValue], _ path: String...) -> Int {
        var value: JSONValue? = .object(stats)
        for key in path {
            guard case let .object(object)? = value else { return 0 }
            value = object[key]
        }
        return Int(value?.numberValue ?? 0)
    }

    /// The JOSE header and claims of a compact JWS, unverified (what the test inspects of what the client sent).
    func parts(_ jwt: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3)
        let header = try JSONDecoder().decode([String: JSONValue].self, from: try #require(Base64URL.decode(pieces[0])))
        let claims = try JSONDecoder().decode([String: JSONValue].self, from: try #require(Base64URL.decode(pieces[1])))
        return (header, claims)
    }

    func form(_ request: TransportRequest) -> [String: String] {
        Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)).map { ($0.0, $0.1) }) { first, _ in first }
    }

    @Test(arguments: [false, true])
    func aFAPI2ClientSignsInAndCallsTheResource(messageSigning: Bool) async throws {
        let name = messageSigning ? "fapi2-message-signing" : "fapi2"
        let client = try server.client(name)
        let recording = RecordingTransport()
        let (result, provider, configuration, store) = try await signIn(client: name, messageSigning: messageSigning, recording: recording)
        #expect(provider.policy.securityProfile == (messageSigning ? .fapi2MessageSigning : .fapi2))
        let tokens = result.session.tokens
        #expect(tokens.tokenType == "dpop" && tokens.isDPoPBound)
        let idToken = try #require(tokens.idToken, "the server gave an ID token")
        #expect(try parts(idToken.value).header["alg"]?.stringValue == "PS256", "FAPI 2.0 ID tokens are PS256 here")
        #expect(result.idToken?.subject.isEmpty == false)

        // Pushed, with a client assertion addressed to the issuer as a string (FAPI 2.0 §5.3.2.1), and, under Message
        // Signing, the request in a signed request object.
        let pushed = try #require(recording.requests.first { $0.url.path == "/par" })
        let parameters = form(pushed)
        let assertion = try parts(try #require(parameters["client_assertion"]))
        #expect(assertion.claims["aud"] == .string(server.issuer))
        #expect(assertion.header["alg"]?.stringValue == "ES256")
        if messageSigning {
            let object = try parts(try #require(parameters["request"], "the pushed request is a request object"))
            #expect(object.claims["aud"] == .string(server.issuer) && object.claims["iss"] == .string(client.clientID))
            #expect(object.claims["code_challenge"] != nil && object.claims["nbf"] != nil && object.claims["exp"] != nil)
            #expect(parameters["code_challenge"] == nil, "the parameters travel only inside the signed object")
        } else {
            #expect(parameters["request"] == nil && parameters["code_challenge_method"] == "S256")
        }

        // What the server saw: every request pushed, the token endpoint's DPoP nonce demanded and answered.
        let stats = try await server.stats()
        #expect(count(stats, "authorization_requests", client.clientID, "pushed") >= 1)
        #expect(count(stats, "authorization_requests", client.clientID, "plain") == 0)
        #expect(count(stats, "nonce_demands", "token") >= 1)
        #expect(count(stats, "request_objects", client.clientID) >= (messageSigning ? 1 : 0))
        #expect(count(stats, "jwt_responses", client.clientID) >= (messageSigning ? 1 : 0), "the answer came as a signed JWT (JARM)")

        // The resource demands its own nonce; userinfo and a refresh go with proofs and the client's assertion.
        let manager = TokenManager(
            client: OAuthClient(provider: provider, configuration: configuration, environment: OAuthEnvironment(transport: recording)), store: store,
            key: result.session.key)
        let answer = try await manager.perform(TransportRequest(method: .get, url: server.resource("nonce/accounts")))
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(try await manager.userInfo()["sub"] != nil)
        let refreshed = try await manager.refresh()
        #expect(refreshed.tokens.isDPoPBound && refreshed.tokens.proofKey == tokens.proofKey)
        let tokenRequests = recording.requests.filter { $0.url.path == "/token" }
        #expect(tokenRequests.count >= 2 && tokenRequests.allSatisfy { form($0)["client_assertion"] != nil && $0.headers["DPoP"] != nil })
        #expect(recording.requests.allSatisfy { !$0.url.absoluteString.contains(tokens.accessToken.value) }, "no token in a URL")
    }

    /// The server enforces what the profile asks: the Message Signing client's plain pushed request (a Security Profile
    /// descriptor, no request object) is refused, so the signed sign-in above is not passing by accident.
    @Test func theMessageSigningClientsPlainRequestIsRefused() async throws {
        let client = try server.client("fapi2-message-signing")
        let provider = try await descriptor(messageSigning: false).provider().discovered(with: DiscoveryClient())
        let oauth = OAuthClient(
            provider: provider, configuration: try settings(client).configuration(redirectURI: URL(string: "http://127.0.0.1:9/callback")))
        let refusal = await #expect(throws: AuthorizationServerError.self) { _ = try await oauth.startAuthorization() }
        #expect(refusal?.error == "invalid_request", "\(String(describing: refusal))")
    }
}
