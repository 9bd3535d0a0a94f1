import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Answers the OpenID discovery document and, optionally, the RFC 8414 metadata; counts requests.
private final class TwoDocuments: HTTPTransport, @unchecked Sendable {
    let rfc8414: String?
    private let lock = NSLock()
    private var paths: [String] = []

    init(rfc8414: String?) { self.rfc8414 = rfc8414 }

    var requested: [String] { lock.withLock { paths } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        lock.withLock { paths.append(request.url.path) }
        let json = ["Content-Type": "application/json"]
        switch request.url.path {
        case "/.well-known/openid-configuration":
            let body = #"{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize","token_endpoint":"https://auth.example.com/token"}"#
            return TransportResponse(status: 200, headers: json, body: Data(body.utf8))
        case "/.well-known/oauth-authorization-server":
            guard let rfc8414 else { return TransportResponse(status: 404, headers: [:], body: Data()) }
            return TransportResponse(status: 200, headers: json, body: Data(rfc8414.utf8))
        default:
            return TransportResponse(status: 404, headers: [:], body: Data())
        }
    }
}

@Suite struct DiscoveryFallbackTests {
    private func provider() throws -> Provider {
        try TestDescriptor(protocol: .oidc, endpoints: [], extra: "discovery:\n  mode: oidc\n").provider()
    }

    @Test func aRevocationEndpointMissingFromDiscoveryIsReadFromRFC8414Metadata() async throws {
        let transport = TwoDocuments(rfc8414: #"{"issuer":"https://auth.example.com","revocation_endpoint":"https://auth.example.com/revoke"}"#)
        let discovery = DiscoveryClient(transport: transport)
        let discovered = try await provider().discovered(with: discovery)
        #expect(discovered.endpoints.revocation == nil)
        #expect(transport.requested == ["/.well-known/openid-configuration"], "discovery alone asks for one document")
        let filled = await discovered.completingRevocation(with: discovery)
        #expect(filled.endpoints.revocation?.absoluteString == "https://auth.example.com/revoke")
        #expect(filled.endpoints.token?.absoluteString == "https://auth.example.com/token")
    }

    /// One cache serves every variable set of a provider (`OAuth` keeps one per provider): a document kept for one
    /// issuer is handed to another only when it names that issuer too.
    @Test func aCachedDocumentIsCheckedAgainstEachIssuerThatAsksForIt() async throws {
        let transport = TwoDocuments(rfc8414: nil)
        let discovery = DiscoveryClient(transport: transport)
        let url = try #require(URL(string: "https://auth.example.com/.well-known/openid-configuration"))
        _ = try await discovery.metadata(at: url, issuers: IssuerMatcher(issuer: URL(string: "https://auth.example.com")), provider: "example")
        let other = IssuerMatcher(issuer: URL(string: "https://tenant-b.example.com"))
        let error = await #expect(throws: DiscoveryError.self) { try await discovery.metadata(at: url, issuers: other, provider: "example") }
        #expect(error?.code == .issuerMismatch)
    }

    @Test func noRFC8414MetadataLeavesRevocationUnsetWithoutFailing() async throws {
        let transport = TwoDocuments(rfc8414: nil)
        let discovery = DiscoveryClient(transport: transport)
        let filled = await (try await provider().discovered(with: discovery)).completingRevocation(with: discovery)
        #expect(filled.endpoints.revocation == nil)
        #expect(filled.endpoints.authorization != nil)
    }

    @Test func rfc8414MetadataOfAnotherIssuerIsNotUsed() async throws {
        let transport = TwoDocuments(rfc8414: #"{"issuer":"https://evil.example.com","revocation_endpoint":"https://evil.example.com/revoke"}"#)
        let discovery = DiscoveryClient(transport: transport)
        let filled = await (try await provider().discovered(with: discovery)).completingRevocation(with: discovery)
        #expect(filled.endpoints.revocation == nil)
    }

    @Test func aClientAsksForRFC8414MetadataOnlyToRevoke() async throws {
        let transport = TwoDocuments(rfc8414: #"{"issuer":"https://auth.example.com","revocation_endpoint":"https://auth.example.com/revoke"}"#)
        let client = OAuthClient(provider: try provider(), configuration: ClientConfiguration(
            clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
        _ = try await client.startAuthorization()
        #expect(transport.requested == ["/.well-known/openid-configuration"], "a sign-in fetches discovery once, nothing more")
        #expect(try await client.revocationEndpoint()?.absoluteString == "https://auth.example.com/revoke")
        #expect(transport.requested == ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"])
    }

    @Test func anIssuerOnlyDescriptorIsRefusedWhenResolved() throws {
        let descriptor = try TestDescriptor(id: "bare", protocol: .oidc, endpoints: []).descriptor()
        let error = try #require(throws: ProviderError.self) { try descriptor.resolve() }
        #expect(error.code == .missingEndpoint)
        #expect(error.message.contains("discovery: {mode: oidc}"), "\(error)")
    }
}
