import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowTesting
import Testing

@testable import OAuthFlowMCP
@testable import OAuthFlowMCPAuth

/// The MCP authorization spec's client side, against an MCP server and its authorization server in process.
@Suite struct MCPAuthorizerTests {
    let world: MCPWorld
    let store = InMemoryTokenStore()
    let registrations = InMemoryClientRegistrationStore()

    init() throws {
        world = try MCPWorld()
    }

    func authorizer(_ change: (inout MCPAuthorizer.Configuration) -> Void = { _ in }) -> (MCPAuthorizer, ApprovingUser) {
        world.authorizer(store: store, registrations: registrations, change)
    }

    static func values(_ name: String, in pairs: [(String, String)]) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// The error a call ends with.
    func refusal(_ authorizer: MCPAuthorizer) async -> MCPAuthorizationError? {
        do {
            _ = try await world.call(authorizer)
            return nil
        } catch let error as MCPAuthorizationError {
            return error
        } catch {
            Issue.record("unexpected error: \(error)")
            return nil
        }
    }

    @Test func signsInWithDynamicRegistrationAndTheResourceIndicator() async throws {
        let (authorizer, user) = authorizer()
        let answer = try await world.call(authorizer)
        #expect(answer.status == 200)
        // RFC 7591: a native public client with its loopback redirect, registered once.
        let registrations = world.requests(to: "auth.example", "/tenant/register")
        #expect(registrations.count == 1)
        let registration = try JSONDecoder().decode(JSONValue.self, from: registrations[0].body ?? Data())
        guard case let .object(members) = registration else { throw MCPAuthorizationError(.invalidMetadata, "not an object") }
        #expect(members["application_type"] == .string("native"))
        #expect(members["redirect_uris"] == .array([.string("http://127.0.0.1/callback")]))
        #expect(members["token_endpoint_auth_method"] == .string("none"))
        // The authorization request (pushed: the server has a PAR endpoint) and the token request name the resource, with PKCE.
        let authorization = try #require(world.authorizationParameters().first)
        #expect(Self.values("resource", in: authorization) == ["https://mcp.example/mcp"])
        #expect(Self.values("code_challenge_method", in: authorization) == ["S256"])
        #expect(Self.values("client_id", in: authorization) == ["registered-1"])
        // The challenge's scope, not every scope the metadata lists (MCP authorization, "Scope Selection Strategy").
        #expect(Self.values("scope", in: authorization).first?.split(separator: " ").contains("mcp:write") == false)
        #expect(Self.values("scope", in: authorization).first?.contains("mcp:read") == true)
        let token = try #require(world.requests(to: "auth.example", "/tenant/token").first)
        #expect(Self.values("resource", in: MCPWorld.form(token)) == ["https://mcp.example/mcp"])
        #expect(user.opened.values.count == 1)
        // A second authorizer with the same stores: the session is used, nobody signs in or registers again.
        let (again, secondUser) = self.authorizer()
        #expect(try await world.call(again).status == 200)
        #expect(secondUser.opened.values.isEmpty)
        #expect(world.requests(to: "auth.example", "/tenant/register").count == 1)
    }

    /// Made from the host's front door: the MCP session lands in its store and every request goes through its transport,
    /// so a second authorizer made from another `OAuth` over the same store signs nobody in again.
    @Test func aConfigurationMadeFromTheFrontDoorSharesItsStoreAndTransport() async throws {
        func authorizer() -> MCPAuthorizer {
            let oauth = OAuth(OAuth.Configuration(store: store, environment: world.environment))
            var configuration = MCPAuthorizer.Configuration(
                oauth: oauth, browser: world.browser, registrations: registrations, clientName: "MCP tests")
            configuration.signInTimeout = .seconds(90)
            return MCPAuthorizer(configuration)
        }
        #expect(try await world.call(authorizer()).status == 200)
        #expect(world.requests(to: "auth.example", "/tenant/token").count == 1)
        #expect(try await world.call(authorizer()).status == 200)
        #expect(world.authorizations.values.count == 1, "the second authorizer found the session in the shared store")
        #expect(world.requests(to: "auth.example", "/tenant/token").count == 1)
    }

    @Test func refreshesWithTheResourceWhenTheTokenExpires() async throws {
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        world.provider.clock.advance(7200)
        #expect(try await world.call(authorizer).status == 200)
        let tokens = world.requests(to: "auth.example", "/tenant/token").map(MCPWorld.form)
        let refresh = try #require(tokens.first { Self.values("grant_type", in: $0) == ["refresh_token"] })
        #expect(Self.values("resource", in: refresh) == ["https://mcp.example/mcp"])
        #expect(user.opened.values.count == 1)
    }

    @Test func findsTheMetadataAtTheWellKnownPathWithoutAHint() async throws {
        world.namesMetadata = false
        let (authorizer, _) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        #expect(world.requests(to: "mcp.example", MCPWorld.metadataURL.path).count == 1)
    }

    @Test func usesTheClientMetadataDocumentWhenTheServerTakesOne() async throws {
        let document = URL(string: "https://app.example/oauth/client.json")!
        world.metadataChanges["client_id_metadata_document_supported"] = .bool(true)
        await world.provider.register(.public(id: document.absoluteString, redirectURIs: [URL(string: "http://127.0.0.1/callback")!]))
        let (authorizer, _) = authorizer { $0.clientMetadataDocument = document }
        #expect(try await world.call(authorizer).status == 200)
        #expect(world.requests(to: "auth.example", "/tenant/register").isEmpty)
        #expect(Self.values("client_id", in: try #require(world.authorizationParameters().first)) == [document.absoluteString])
    }

    @Test func usesTheHostsClientFirst() async throws {
        world.metadataChanges["client_id_metadata_document_supported"] = .bool(true)
        let (authorizer, _) = authorizer {
            $0.clients = [MCPWorld.issuer.absoluteString: ClientSettings(clientID: SimulatedProvider.appClientID)]
            $0.clientMetadataDocument = URL(string: "https://app.example/oauth/client.json")
        }
        #expect(try await world.call(authorizer).status == 200)
        #expect(world.requests(to: "auth.example", "/tenant/register").isEmpty)
        #expect(Self.values("client_id", in: try #require(world.authorizationParameters().first)) == [SimulatedProvider.appClientID])
    }

    @Test func refusesAnIssuerMismatch() async throws {
        world.metadataChanges["issuer"] = .string("https://auth.example/other")
        let (authorizer, user) = authorizer()
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .issuerMismatch)
        #expect(error.message.contains("https://auth.example/other"))
        #expect(user.opened.values.isEmpty)
    }

    @Test func refusesMetadataForAnotherResource() async throws {
        world.resourceMetadata["resource"] = .string("https://other.example/mcp")
        let (authorizer, user) = authorizer()
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .resourceMismatch)
        #expect(user.opened.values.isEmpty)
        #expect(world.requests(to: "auth.example", "/.well-known/oauth-authorization-server/tenant").isEmpty)
    }

    /// Metadata at the root of the origin naming the bare origin would make the token's audience every API there: the
    /// `resource` must be the server's canonical URI wherever the document is found.
    @Test func refusesRootMetadataNamingTheBareOrigin() async throws {
        var root = world.resourceMetadata
        root["resource"] = .string("https://mcp.example")
        world.rootResourceMetadata = root
        world.namedMetadataURL = URL(string: "https://mcp.example/.well-known/oauth-protected-resource")!
        let (authorizer, user) = authorizer()
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .resourceMismatch, "\(error)")
        #expect(user.opened.values.isEmpty)
        #expect(world.requests(to: "auth.example", "/.well-known/oauth-authorization-server/tenant").isEmpty)
    }

    /// Root metadata found by probing may name the origin (RFC 9728 §3.3; the conformance suite's `auth/metadata-var2`),
    /// and the token is still asked for the MCP server's canonical URI alone, never for the whole origin.
    @Test func probedRootMetadataNamingTheOriginGetsATokenForTheServerAlone() async throws {
        var root = world.resourceMetadata
        root["resource"] = .string("https://mcp.example")
        world.rootResourceMetadata = root
        world.servesPathMetadata = false
        world.namesMetadata = false
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        #expect(user.opened.values.count == 1)
        #expect(Self.values("resource", in: try #require(world.authorizationParameters().first)) == ["https://mcp.example/mcp"])
        let exchange = try #require(world.requests(to: "auth.example", "/tenant/token").first)
        #expect(String(decoding: exchange.body ?? Data(), as: UTF8.self).contains("resource=https%3A%2F%2Fmcp.example%2Fmcp"))
    }

    /// Metadata naming the server in another spelling (letter case, a trailing slash, a fragment) names this server, and
    /// the token is asked for the server's canonical URI, never the spelling: RFC 8707 §2 forbids a fragment.
    @Test(arguments: ["HTTPS://MCP.example/mcp", "https://mcp.example/mcp/", "https://mcp.example/mcp#x", "https://mcp.example:443/mcp"])
    func theCanonicalURIIsSentWhateverTheMetadataSpelling(_ spelling: String) async throws {
        world.resourceMetadata["resource"] = .string(spelling)
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        #expect(user.opened.values.count == 1)
        #expect(Self.values("resource", in: try #require(world.authorizationParameters().first)) == ["https://mcp.example/mcp"])
        let exchange = try #require(world.requests(to: "auth.example", "/tenant/token").first)
        #expect(String(decoding: exchange.body ?? Data(), as: UTF8.self).contains("resource=https%3A%2F%2Fmcp.example%2Fmcp&")
            || String(decoding: exchange.body ?? Data(), as: UTF8.self).hasSuffix("resource=https%3A%2F%2Fmcp.example%2Fmcp"))
    }

    @Test func refusesMetadataOnAnotherOrigin() async throws {
        world.namedMetadataURL = URL(string: "https://evil.example/.well-known/oauth-protected-resource")!
        let (authorizer, _) = authorizer()
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .untrustedMetadata)
        #expect(world.requests.values.allSatisfy { $0.url.host != "evil.example" })
    }

    @Test(arguments: [
        TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>welcome</html>".utf8)),
        MCPWorld.json(["client_id": .string("")], status: 201),
        MCPWorld.json(["client_id": .string("x"), "token_endpoint_auth_method": .string("private_key_jwt")], status: 201),
        MCPWorld.json(["client_id": .string("x"), "redirect_uris": .array([.string("https://evil.example/cb")])], status: 201),
        // The loopback asked for, and one nobody asked for: codes could be sent there.
        MCPWorld.json(
            ["client_id": .string("x"), "redirect_uris": .array([.string("http://127.0.0.1/callback"), .string("https://evil.example/cb")])],
            status: 201),
        TransportResponse(status: 302, headers: ["Location": "https://evil.example/register"]),
        MCPWorld.json(["error": .string("invalid_redirect_uri")], status: 400),
    ])
    func refusesAJunkRegistration(answer: TransportResponse) async throws {
        world.registrationAnswer = answer
        let (authorizer, user) = authorizer()
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .registrationFailed)
        #expect(error.message.contains("https://auth.example/tenant/register"))
        #expect(user.opened.values.isEmpty)
    }

    @Test func stepsUpToTheUnionOfScopes() async throws {
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        world.requiredScopes = ["mcp:read", "mcp:write"]
        #expect(try await world.call(authorizer).status == 200)
        #expect(user.opened.values.count == 2)
        let second = try #require(world.authorizationParameters().last)
        let scopes = Set(Self.values("scope", in: second).first?.split(separator: " ").map(String.init) ?? [])
        #expect(scopes.isSuperset(of: ["mcp:read", "mcp:write"]))
    }

    @Test func stepsUpOnceForEndlessDemands() async throws {
        world.registeredScopes = ["mcp:read", "offline_access"]
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        world.requiredScopes = ["mcp:read", "mcp:admin"]
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .refusedAgain)
        #expect(user.opened.values.count == 2)
        // The next call of the same operation does not sign in again either.
        #expect(await refusal(authorizer)?.code == .refusedAgain)
        #expect(user.opened.values.count == 2)
    }

    /// A server that names a new scope at every 403 gets a bounded number of step-ups per operation, not a browser
    /// sign-in each time.
    @Test(arguments: [nil, 1, 3])
    func stepUpsAreBoundedWhenEachDemandNamesANewScope(_ bound: Int?) async throws {
        let (authorizer, user) = authorizer { configuration in
            if let bound { configuration.maximumStepUps = bound }
        }
        #expect(try await world.call(authorizer).status == 200)
        var refused: MCPAuthorizationError?
        for round in 1...6 {
            world.requiredScopes = ["mcp:read", "mcp:extra\(round)"]
            if let error = await refusal(authorizer) {
                refused = error
                break
            }
        }
        #expect(refused?.code == .refusedAgain)
        // The host's bound, 2 when it sets none.
        #expect(user.opened.values.count == 1 + (bound ?? 2), "\(user.opened.values.count) sign-ins")
    }

    /// A 401 after another process stored new tokens, which a security event has since marked for a new sign-in: the
    /// marked token is not adopted and sent to the MCP server; the user is asked to sign in again.
    @Test func aMarkedSessionIsNotAdoptedAfterA401() async throws {
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer).status == 200)
        let key = try #require(await authorizer.authorization.sessionKey(for: MCPWorld.endpoint))
        var stored = try #require(await store.load(key))
        stored.tokens.accessToken = Secret("another-process-token")
        stored.reauthenticationRequired = .init(event: "https://schemas.openid.net/secevent/caep/event-type/credential-change", markedAt: Date())
        await store.save(stored)
        world.rejectsEveryToken = true
        // Past the moments in which a refusal of a new token is the server's last word, within the token's life.
        world.provider.clock.advance(120)
        _ = try? await world.call(authorizer)
        let sent = world.requests(to: "mcp.example", MCPWorld.endpoint.path).compactMap { $0.headers["Authorization"] }
        #expect(!sent.contains("Bearer another-process-token"), "\(sent)")
        #expect(user.opened.values.count == 2, "a new sign-in instead")
    }

    @Test func refusesAServerThatRefusesItsNewToken() async throws {
        world.rejectsEveryToken = true
        let (authorizer, user) = authorizer()
        let error = try #require(await refusal(authorizer))
        #expect(error.code == .refusedAgain)
        #expect(user.opened.values.count == 1)
    }

    @Test func refusesAnInsecureServerURL() {
        let (authorizer, _) = authorizer()
        #expect(throws: MCPAuthorizationError.self) { try authorizer.validateEndpointSecurity(for: URL(string: "http://mcp.example/mcp")!) }
    }

    @Test(arguments: [
        ("https://auth.example", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]),
        (
            "https://auth.example/tenant/1",
            [
                "/.well-known/oauth-authorization-server/tenant/1", "/.well-known/openid-configuration/tenant/1",
                "/tenant/1/.well-known/openid-configuration",
            ]
        ),
    ])
    func looksForAuthorizationServerMetadataInTheSpecsOrder(issuer: String, paths: [String]) throws {
        let url = try #require(URL(string: issuer))
        #expect(ServerDiscovery.metadataLocations(of: url).map(\.0.path) == paths)
    }

    @Test func canonicalizesTheServerURI() throws {
        let url = try #require(URL(string: "HTTPS://MCP.Example.com:443/mcp/#top"))
        let canonical = try #require(ResourceIdentifier(url))
        #expect(canonical.description == "https://mcp.example.com/mcp")
        #expect(
            canonical.metadataLocations.map(\.absoluteString) == [
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource",
            ])
    }
}
