import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The simulated provider's side of mutual TLS (RFC 8705): clients authenticated by their certificate, tokens bound to
/// it, and the `mtls_endpoint_aliases` host.
@Suite struct MutualTLSTests {
    static let identity = Result { try TLSClientIdentity.simulated(commonName: "orders", organization: "Bank", dnsNames: ["orders.bank.example"]) }

    /// A provider with a `tls_client_auth` client named `subject`, and a client credentials request of it.
    static func provider(
        _ subject: SimulatedClient.CertificateSubject = .distinguishedName("CN=orders,O=Bank"),
        change: (inout SimulatedProvider.Settings) -> Void = { _ in }
    ) throws -> SimulatedProvider {
        var settings = SimulatedProvider.Settings()
        change(&settings)
        return try SimulatedProvider(settings: settings, clients: [.tlsClientAuth(id: "orders", subject: subject)])
    }

    static func tokenRequest(_ simulated: SimulatedProvider, host: URL? = nil, identity: TLSClientIdentity?) -> TransportRequest {
        let url = (host ?? simulated.mutualTLSBase).appendingPathComponent("token")
        return TransportRequest(
            method: .post, url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("grant_type=client_credentials&client_id=orders".utf8), clientIdentity: identity)
    }

    @Test func metadataPublishesTheAliasesOnTheMutualTLSHostAndTheirSettingLeavesThemOut() async throws {
        let simulated = try Self.provider()
        let discovery = simulated.issuer.appendingPathComponent(".well-known/openid-configuration")
        let members = Simulation.members(try await simulated.transport.send(TransportRequest(method: .get, url: discovery)))
        guard case let .object(aliases)? = members["mtls_endpoint_aliases"] else {
            Issue.record("no mtls_endpoint_aliases")
            return
        }
        #expect(
            Set(aliases.keys) == [
                "token_endpoint", "pushed_authorization_request_endpoint", "userinfo_endpoint", "revocation_endpoint", "introspection_endpoint",
            ])
        #expect(aliases["token_endpoint"] == .string("https://mtls.simulated.example/token"))
        #expect(members["tls_client_certificate_bound_access_tokens"] == .bool(true))
        guard case let .array(methods)? = members["token_endpoint_auth_methods_supported"] else {
            Issue.record("no token_endpoint_auth_methods_supported")
            return
        }
        #expect(methods.contains(.string("tls_client_auth")) && methods.contains(.string("self_signed_tls_client_auth")))

        await simulated.configure { $0.mutualTLSAliases = [] }
        let without = Simulation.members(try await simulated.transport.send(TransportRequest(method: .get, url: discovery)))
        #expect(without["mtls_endpoint_aliases"] == nil)
    }

    @Test func aTLSClientAuthenticatesWithItsCertificateAtTheAliasAndItsTokensAreBoundToIt() async throws {
        let identity = try Self.identity.get()
        let thumbprint = try #require(identity.thumbprint)
        let simulated = try Self.provider { $0.accessTokenFormat = .jwt }
        let answer = try await simulated.transport.send(Self.tokenRequest(simulated, identity: identity))
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let members = Simulation.members(answer)
        #expect(members["token_type"] == .string("Bearer"))
        let token = try #require(members["access_token"]?.stringValue)
        #expect(Simulation.claims(token)["cnf"] == .object(["x5t#S256": .string(thumbprint)]))

        // Introspection says the binding too (RFC 8705 §3.2), to the client authenticated at its alias.
        let introspection = TransportRequest(
            method: .post, url: simulated.mutualTLSBase.appendingPathComponent("introspect"),
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("token=\(token)&client_id=orders".utf8),
            clientIdentity: identity)
        let introspected = Simulation.members(try await simulated.transport.send(introspection))
        #expect(introspected["cnf"] == .object(["x5t#S256": .string(thumbprint)]))

        // At the resource: taken with the certificate, refused without it or with another one.
        let resource = try #require(URL(string: "https://api.simulated.example/accounts"))
        var call = TransportRequest(method: .get, url: resource, headers: ["Authorization": "Bearer \(token)"], clientIdentity: identity)
        #expect(await simulated.protectedResourceRefusal(call) == nil)
        call.clientIdentity = nil
        let refused = try #require(await simulated.protectedResourceRefusal(call))
        #expect(refused.status == 401)
        #expect(refused.headers["www-authenticate"]?.contains("invalid_token") == true)
        call.clientIdentity = try TLSClientIdentity.simulated(commonName: "orders", organization: "Bank")
        #expect(await simulated.protectedResourceRefusal(call)?.status == 401, "the same subject, another certificate")
    }

    @Test(arguments: [
        SimulatedClient.CertificateSubject.distinguishedName("cn=orders, o=Bank"), .dnsName("ORDERS.bank.example"),
    ])
    func aClientIsNamedByItsSubjectOrAnAlternativeName(_ subject: SimulatedClient.CertificateSubject) async throws {
        let simulated = try Self.provider(subject)
        #expect(try await simulated.transport.send(Self.tokenRequest(simulated, identity: try Self.identity.get())).status == 200)
    }

    @Test(arguments: [
        SimulatedClient.CertificateSubject.distinguishedName("CN=orders,O=Another"), .dnsName("other.bank.example"), .uri("https://bank.example"),
        .email("orders@bank.example"),
    ])
    func aCertificateThatNamesAnotherClientIsRefused(_ subject: SimulatedClient.CertificateSubject) async throws {
        let simulated = try Self.provider(subject)
        let answer = try await simulated.transport.send(Self.tokenRequest(simulated, identity: try Self.identity.get()))
        #expect(answer.status == 401)
        #expect(Simulation.error(answer) == "invalid_client")
    }

    @Test func aSelfSignedClientIsTheCertificateItRegistered() async throws {
        let identity = try Self.identity.get()
        let simulated = try SimulatedProvider(clients: [.selfSignedTLSClientAuth(id: "orders", certificatePEM: identity.certificateChainPEM)])
        #expect(try await simulated.transport.send(Self.tokenRequest(simulated, identity: identity)).status == 200)
        let other = try TLSClientIdentity.simulated(commonName: "orders", organization: "Bank")
        #expect(try await simulated.transport.send(Self.tokenRequest(simulated, identity: other)).status == 401)
    }

    @Test func theAliasHostRefusesARequestWithoutACertificateOrWithAnotherKey() async throws {
        let simulated = try Self.provider()
        let error = await #expect(throws: TransportError.self) { try await simulated.transport.send(Self.tokenRequest(simulated, identity: nil)) }
        #expect(error?.code == .tls)
        var mismatched = try Self.identity.get()
        mismatched.privateKeyPEM = try TLSClientIdentity.simulated(commonName: "x").privateKeyPEM
        let handshake = await #expect(throws: TransportError.self) {
            try await simulated.transport.send(Self.tokenRequest(simulated, identity: mismatched))
        }
        #expect(handshake?.code == .clientCertificate)
    }

    @Test func thePlainEndpointOfAnAliasAsksForNoCertificateAndOneWithoutAliasDoes() async throws {
        let identity = try Self.identity.get()
        let simulated = try Self.provider()
        // The token endpoint has an alias: its published URL does not ask for the certificate, so the client is unknown there.
        let plain = try await simulated.transport.send(Self.tokenRequest(simulated, host: simulated.issuer, identity: identity))
        #expect(plain.status == 401)
        #expect(Simulation.error(plain) == "invalid_client")
        // Without aliases, the published endpoints take the certificate (RFC 8705 §5).
        await simulated.configure { $0.mutualTLSAliases = [] }
        #expect(try await simulated.transport.send(Self.tokenRequest(simulated, host: simulated.issuer, identity: identity)).status == 200)
        #expect(try await simulated.transport.send(Self.tokenRequest(simulated, identity: identity)).status == 404, "no alias published")
    }

    @Test func aBoundTokenIsRefusedAtUserinfoWithoutItsCertificate() async throws {
        let identity = try Self.identity.get()
        let simulated = try SimulatedProvider(clients: [
            .tlsClientAuth(id: "bank-app", subject: .distinguishedName("CN=orders,O=Bank"), redirectURIs: [Simulation.redirect])
        ])
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        options.clientAuthentication = [.tlsClientAuth]
        let client = OAuthClient(
            provider: try simulated.provider(options),
            configuration: ClientConfiguration(clientID: "bank-app", redirectURI: Simulation.redirect, tlsIdentity: identity),
            environment: simulated.environment)
        let outcome = try await Simulation.signIn(client, at: simulated)
        #expect(outcome.tokens.certificateThumbprint == identity.thumbprint)
        #expect(try await client.userInfo(outcome.tokens)["sub"] == .string("user-1"))

        let userinfo = simulated.mutualTLSBase.appendingPathComponent("userinfo")
        let bare = TransportRequest(
            method: .get, url: userinfo, headers: ["Authorization": "Bearer \(outcome.tokens.accessToken.value)"],
            clientIdentity: try TLSClientIdentity.simulated(commonName: "another"))
        let answer = try await simulated.transport.send(bare)
        #expect(answer.status == 401)
    }

    @Test(arguments: [
        SimulatedClient.CertificateSubject.distinguishedName(#"CN=a\,b,O=Bank"#), .dnsName("x.example"), .uri("https://x.example/app"),
        .email("x@example.com"),
    ])
    func theCertificateNamesItsSubjectAndAlternativeNames(_ subject: SimulatedClient.CertificateSubject) async throws {
        let identity = try TLSClientIdentity.simulated(
            commonName: "a,b", organization: "Bank", dnsNames: ["x.example"], uris: ["https://x.example/app"], emails: ["x@example.com"])
        #expect(identity.certificateChainPEM.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let simulated = try Self.provider(subject)
        #expect(try await simulated.transport.send(Self.tokenRequest(simulated, identity: identity)).status == 200)
    }
}
