import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// What the catalog (Docs/providers.md, `providers list`) and the bundled descriptors claim, held against what
/// the providers publish: the dated copies of their discovery documents in Fixtures/metadata, and the defaults
/// their pages give.
@Suite struct CatalogTruthTests {
    static let metadataDirectory = repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/metadata")

    /// Descriptors that record what their discovery document lacks without a copy of it here: each provider's
    /// pages document no RFC 7009 endpoint, and no copy of its document was at hand.
    static let lacksWithoutACopy: Set<String> = ["fusionauth", "kakao"]

    /// A dated copy of a provider's discovery document: every member it has, and its endpoints.
    struct RecordedDocument: Decodable {
        var document: String
        var recorded: String
        var copy: String
        var members: [String]
        var endpoints: [String: String]?
    }

    static var recordedIDs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: metadataDirectory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func recorded(_ id: String) throws -> RecordedDocument {
        try JSONDecoder().decode(RecordedDocument.self, from: Data(contentsOf: metadataDirectory.appendingPathComponent("\(id).json")))
    }

    static func registry() throws -> ProviderRegistry {
        try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false)
    }

    /// A member the recorded document names has its endpoint in the descriptor (the catalog says `yes`); one it
    /// lacks is in `discovery.lacks` (the catalog says `no`, or `yes` when the descriptor names an endpoint the
    /// provider's pages give). Before, Microsoft's revocation and Google's, GitLab's, Slack's, Dropbox's,
    /// Twitch's and Yahoo's end-session cells said `discovery` for members their documents lack.
    @Test(arguments: recordedIDs)
    func theCatalogAgreesWithTheRecordedDocument(_ id: String) throws {
        let copy = try Self.recorded(id)
        #expect(copy.copy.hasPrefix("https://") && copy.document.hasPrefix("https://"), "\(id): names the document and where the copy is")
        #expect(copy.recorded.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, "\(id): dated")
        let descriptor = try Self.registry().descriptor(named: id)
        let entry = descriptor.catalogEntry
        let columns: [(member: String, endpoint: ProviderDescriptor.DiscoveryEndpoint, declared: String?, cell: String)] = [
            ("revocation_endpoint", .revocation, descriptor.endpoints.revocation, entry.revocation),
            ("end_session_endpoint", .endSession, descriptor.endpoints.endSession, entry.logout.split(separator: ",").first.map(String.init) ?? ""),
        ]
        for column in columns {
            if copy.members.contains(column.member) {
                #expect(column.declared != nil && column.cell == "yes", "\(id): the document names \(column.member)")
                #expect(!descriptor.discovery.lacks.contains(column.endpoint), "\(id): `lacks` names \(column.member), which the document has")
            } else {
                #expect(
                    descriptor.discovery.lacks.contains(column.endpoint),
                    "\(id): the document lacks \(column.member); `discovery.lacks` should say so")
                #expect(column.cell == (column.declared == nil ? "no" : "yes"), "\(id): \(column.member) is `\(column.cell)`")
            }
        }
        if let endpoints = copy.endpoints {
            #expect(Set(endpoints.keys).isSubset(of: copy.members), "\(id): every endpoint is a member")
        }
    }

    /// No bundled cell is left to a document read at sign-in: every descriptor that asks for discovery names its
    /// revocation and end-session endpoints, states the case in which it has one, or records that its document
    /// lacks it, and those records have a copy of the document here (or are the two known without one).
    @Test func noBundledCellIsLeftToTheDocument() throws {
        let descriptors = try Self.registry().all.map(\.descriptor)
        for descriptor in descriptors {
            let entry = descriptor.catalogEntry
            for cell in [entry.revocation, entry.logout] {
                #expect(!cell.contains("not stated") && !cell.contains("discovery"), "\(descriptor.id): `\(cell)`")
            }
        }
        let lacking = Set(descriptors.filter { !$0.discovery.lacks.isEmpty }.map(\.id))
        #expect(
            lacking == Set(Self.recordedIDs).union(Self.lacksWithoutACopy),
            "\(lacking.symmetricDifference(Set(Self.recordedIDs).union(Self.lacksWithoutACopy)))")
        #expect(Self.lacksWithoutACopy.isDisjoint(with: Self.recordedIDs))
    }

    /// A descriptor that asks for discovery and says nothing about an endpoint is `not stated`, not `no`;
    /// one that asks for none and names none is `no`.
    @Test func anUnrecordedEndpointIsNotStated() throws {
        let discovering = try TestDescriptor(protocol: .oidc, extra: "discovery:\n  mode: oidc\n").descriptor()
        #expect(discovering.catalogEntry.revocation == "not stated")
        #expect(discovering.catalogEntry.logout == "not stated")
        let recorded = try TestDescriptor(protocol: .oidc, extra: "discovery:\n  mode: oidc\n  lacks: [revocation, end_session]\n").descriptor()
        #expect(recorded.catalogEntry.revocation == "no")
        #expect(recorded.catalogEntry.logout == "no")
        let staticOnly = try TestDescriptor(protocol: .oidc).descriptor()
        #expect(staticOnly.catalogEntry.revocation == "no")
    }

    /// A self-hosted server whose revocation path is its deployment's configuration says so: `conditional`, with
    /// the case beside it in the entry (and its JSON), never `not stated`.
    @Test func aRevocationEndpointLeftToTheDeploymentIsConditional() throws {
        let descriptor = try TestDescriptor(
            protocol: .oidc, extra: "discovery:\n  mode: oidc\n  lacks: [end_session]\nrevocation:\n  condition: when the deployment enables it\n"
        ).descriptor()
        #expect(descriptor.catalogEntry.revocation == "conditional")
        #expect(descriptor.catalogEntry.revocationCondition == "when the deployment enables it")
        let json = String(decoding: try JSONEncoder().encode(descriptor.catalogEntry), as: UTF8.self)
        #expect(json.contains("\"revocation_condition\""))
    }

    /// Refresh tokens that come only in some cases are `conditional`, with the case; Keycloak's cell keeps its
    /// scope and says what it changes. Before, GitHub, LinkedIn, Slack, Amazon and Shopify said `yes`.
    @Test(arguments: ["amazon", "github", "linkedin", "shopify", "slack"])
    func conditionalRefreshSaysSo(_ id: String) throws {
        let entry = try Self.registry().descriptor(named: id).catalogEntry
        #expect(entry.refresh == "conditional")
        #expect(entry.refreshCondition?.isEmpty == false)
        let json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        #expect(json.contains("\"refresh_condition\""))
    }

    @Test func keycloakSaysWhatOfflineAccessChanges() throws {
        let entry = try Self.registry().descriptor(named: "keycloak").catalogEntry
        #expect(entry.refresh == "offline_access")
        #expect(entry.refreshCondition?.contains("offline token") == true)
        #expect(entry.refreshCondition?.contains("ordinary refresh token") == true)
    }

    /// Salesforce's end-session endpoint is in a My Domain's document only: `conditional`, with the case.
    @Test func salesforceLogoutIsConditional() throws {
        let entry = try Self.registry().descriptor(named: "salesforce").catalogEntry
        #expect(entry.logout == "conditional")
        #expect(entry.logoutCondition?.contains("My Domain") == true)
    }

    /// GitLab documents the authorization code flow with and without PKCE: `supported`, and the engine still sends it.
    @Test func gitLabTakesPKCEWithoutRequiringIt() throws {
        let descriptor = try Self.registry().descriptor(named: "gitlab")
        #expect(descriptor.catalogEntry.pkce == "supported")
        let pending = try PendingAuthorization.start(
            provider: try descriptor.resolve([:]),
            client: ClientConfiguration(clientID: "c", redirectURI: try #require(URL(string: "http://127.0.0.1:49152/callback")) as URL))
        let query = URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains { $0.name == "code_challenge_method" && $0.value == "S256" })
        #expect(query.contains { $0.name == "code_challenge" && $0.value == pending.pkce?.challenge })
    }

    /// Providers whose pages grant refresh tokens for `offline_access` alone are not sent `prompt=consent`, which
    /// shows a consent page at every sign-in (Entra ID: AADSTS90094 for users who may not consent themselves).
    /// Before, all of them sent it.
    @Test(
        arguments: [
            ("microsoft", [:]), ("auth0", ["domain": "example.us.auth0.com"]), ("keycloak", ["host": "sso.example.com", "realm": "master"]),
            ("okta", ["domain": "dev-123456.okta.com"]), ("authentik", ["host": "auth.example.com", "slug": "app"]),
            ("fusionauth", ["host": "auth.example.com"]), ("pingone", ["env_id": "11111111-2222-3333-4444-555555555555"]),
            ("workos", ["domain": "example-subdomain.authkit.app"]), ("zitadel", ["domain": "example.zitadel.cloud"]),
        ] as [(String, [String: String])])
    func offlineAccessComesWithoutAConsentPrompt(_ id: String, _ variables: [String: String]) throws {
        let descriptor = try Self.registry().descriptor(named: id)
        #expect(descriptor.scopes.offline.withoutConsentPrompt)
        let pending = try PendingAuthorization.start(
            provider: try descriptor.resolve(variables),
            client: ClientConfiguration(clientID: "c", redirectURI: try #require(URL(string: "http://127.0.0.1:49152/callback")) as URL))
        let query = URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "scope" }?.value?.split(separator: " ").contains("offline_access") == true)
        #expect(!query.contains { $0.name == "prompt" }, "\(id): \(pending.url)")
    }

    /// An Auth0 API that signs its access tokens PS256 (Auth0's add-on) is accepted; before, the descriptor's
    /// `signing_algs: [RS256]` refused every such token.
    @Test func anAuth0AccessTokenSignedPS256IsAccepted() async throws {
        let provider = try Self.registry().descriptor(named: "auth0").resolve(["domain": "tenant.example.com"])
        #expect(provider.policy.accessTokens.algorithms.contains(.ps256))
        let key = try Insecure.RSA.PrivateKey(
            pem: String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys/client.key"), encoding: .utf8))
        let keys = JWTKeyCollection()
        await keys.add(pss: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: "ps-1"))
        let signer = try await keys.getKey(for: JWKIdentifier(string: "ps-1"))
        let (n, e) = try key.publicKey.getKeyPrimitives()
        let server = InProcessAuthorizationServer()
        server.serve(
            ProtectionToken.jwks([["kty": "RSA", "n": Base64URL.encode(n), "e": Base64URL.encode(e), "kid": "ps-1", "alg": "PS256", "use": "sig"]]),
            at: "https://tenant.example.com/.well-known/jwks.json")
        let clock = StoppedClock()
        let claims = ProtectionToken.claims(now: clock.now(), ["iss": .string("https://tenant.example.com/")])
        let input =
            try ProtectionToken.encode(["alg": .string("PS256"), "kid": .string("ps-1"), "typ": .string("at+jwt")]) + "."
            + ProtectionToken.encode(claims)
        let token = input + "." + Base64URL.encode(Data(try signer.sign(Array(input.utf8))))
        let api = try ProtectedResource(providers: [provider], settings: ProtectionSetup.settings(), environment: OAuthEnvironment(transport: server, clock: clock))
        let principal = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"), requiring: ["notes:read"])
        #expect(principal.providerID == "auth0")
        #expect(principal.subject == "user-1")
    }
}
