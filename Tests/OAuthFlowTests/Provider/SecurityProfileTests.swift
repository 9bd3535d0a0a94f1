import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// `security.profile: fapi2` on the descriptor's side: a descriptor that claims FAPI 2.0 and contradicts it is refused
/// at the setting that contradicts it, saying what the profile requires; one that follows it resolves into a policy held
/// to the profile.
@Suite struct SecurityProfileTests {
    /// A descriptor that follows FAPI 2.0.
    static let compliant = """
        schema_version: 1
        id: bank
        display_name: Bank
        protocol: oidc
        issuer: https://bank.example.com
        discovery:
          mode: oidc
        scopes:
          default: [openid, accounts]
        client_auth:
          methods: [private_key_jwt]
        security:
          profile: fapi2
          id_token_algs: [PS256, ES256]
          dpop: required

        """

    static func descriptor(_ text: String) throws -> ProviderDescriptor {
        let document = DescriptorDocument.parse(Data(text.utf8), path: "bank.yaml")
        return try #require(document.descriptor, "\(document.problems)")
    }

    /// One contradiction: how the compliant descriptor is changed, the key path refused, and what the message says.
    struct Contradiction: CustomTestStringConvertible, Sendable {
        let name: String
        let change: @Sendable (String) -> String
        let keyPath: [String]
        let says: String
        var testDescription: String { name }

        static func replacing(_ name: String, _ old: String, _ new: String, at keyPath: [String], says: String) -> Self {
            Self(name: name, change: { $0.replacingOccurrences(of: old, with: new) }, keyPath: keyPath, says: says)
        }

        static func adding(_ name: String, _ yaml: String, at keyPath: [String], says: String) -> Self {
            Self(name: name, change: { $0 + yaml }, keyPath: keyPath, says: says)
        }

        static func addingToSecurity(_ name: String, _ line: String, at keyPath: [String], says: String) -> Self {
            replacing(name, "  dpop: required\n", "  dpop: required\n  \(line)\n", at: keyPath, says: says)
        }
    }

    static let contradictions: [Contradiction] = [
        .adding("no PAR", "authorization:\n  pushed: never\n", at: ["authorization", "pushed"], says: "pushes every authorization request"),
        .replacing("RS256 ID tokens", "[PS256, ES256]", "[RS256, PS256]", at: ["security", "id_token_algs", "0"], says: "PS256, ES256 or EdDSA"),
        .replacing(
            "the default ID token algorithms", "  id_token_algs: [PS256, ES256]\n", "", at: ["security", "id_token_algs", "0"],
            says: "(the default list)"),
        .replacing(
            "client_secret_basic", "[private_key_jwt]", "[private_key_jwt, client_secret_basic]", at: ["client_auth", "methods", "1"],
            says: "`private_key_jwt`, `tls_client_auth`, `self_signed_tls_client_auth`"),
        .replacing("no client authentication", "client_auth:\n  methods: [private_key_jwt]\n", "", at: ["client_auth", "method"], says: "(the default)"),
        .replacing("DPoP never", "dpop: required", "dpop: never", at: ["security", "dpop"], says: "sender-constrained"),
        .replacing("discovery off", "discovery:\n  mode: oidc\n", "discovery:\n  mode: none\n", at: ["discovery", "mode"], says: "write `mode: oidc`"),
        .adding(
            "static endpoints", "endpoints:\n  token: https://bank.example.com/token\n", at: ["endpoints", "token"],
            says: "takes every endpoint from the issuer's metadata"),
        .replacing(
            "a discovery URL", "  mode: oidc\n", "  mode: oidc\n  url: https://elsewhere.example.com/.well-known/openid-configuration\n",
            at: ["discovery", "url"], says: "well-known address"),
        .addingToSecurity("issuer aliases", "issuer_aliases: [https://old.bank.example.com]", at: ["security", "issuer_aliases"], says: "the issuer itself"),
        .replacing(
            "the token endpoint as audience", "  methods: [private_key_jwt]\n", "  methods: [private_key_jwt]\n  assertion_audience: token_endpoint\n",
            at: ["client_auth", "assertion_audience"], says: "as a string"),
        .replacing(
            "RS256 assertions", "  methods: [private_key_jwt]\n", "  methods: [private_key_jwt]\n  assertion_algs: [RS256, ES256]\n",
            at: ["client_auth", "assertion_algs", "0"], says: "signs client assertions with PS256, ES256 or EdDSA"),
        .addingToSecurity(
            "RS256 DPoP proofs", "dpop_signing_alg_values_supported: [ES256, RS256]", at: ["security", "dpop_signing_alg_values_supported", "1"],
            says: "signs DPoP proofs"),
        .addingToSecurity("Bearer answers kept", "dpop_bearer_answer: accept", at: ["security", "dpop_bearer_answer"], says: "write `refuse`"),
        .addingToSecurity("no iss", "iss_parameter: absent", at: ["security", "iss_parameter"], says: "RFC 9207"),
        .addingToSecurity("no PKCE", "pkce: unsupported", at: ["security", "pkce"], says: "S256"),
        .adding("the token in the query", "userinfo:\n  placement: query\n", at: ["userinfo", "placement"], says: "`Authorization` header"),
        .adding(
            "RS256 request objects", "authorization:\n  request_object: always\n  request_object_algs: [PS256, RS256]\n",
            at: ["authorization", "request_object_algs", "1"], says: "signs request objects with PS256, ES256 or EdDSA"),
        .adding(
            "RS256 JWT-secured responses", "authorization:\n  response_mode: jwt\n  response_algs: [RS256]\n",
            at: ["authorization", "response_algs", "0"], says: "accepts JWT-secured responses signed with PS256, ES256 or EdDSA"),
        .adding(
            "revocation in the query", "revocation:\n  method: GET\n  placement: query\n", at: ["revocation", "placement"], says: "never puts a token in a URL"),
    ]

    @Test func aCompliantDescriptorResolvesHeldToTheProfile() throws {
        let descriptor = try Self.descriptor(Self.compliant)
        #expect(descriptor.refusals.isEmpty, "\(descriptor.refusals)")
        let provider = try descriptor.resolve()
        #expect(provider.policy.securityProfile == .fapi2)
        // `pushed: if_supported` and `iss_parameter: if_present` (the defaults) are held to the profile.
        #expect(provider.policy.pushedAuthorization == .ifSupported)
        #expect(provider.pushesAuthorizationRequests)
        #expect(provider.issuerParameterRule == .required)
        // Client assertions left open (no `assertion_algs`) are narrowed to the profile's algorithms.
        #expect(provider.policy.clientAssertion.algorithms == [.ps256, .es256, .eddsa])
        #expect(provider.policy.idTokenAlgorithms == [.ps256, .es256])
    }

    @Test(arguments: contradictions)
    func aContradictionIsRefusedWhereItIsWritten(_ contradiction: Contradiction) throws {
        let descriptor = try Self.descriptor(contradiction.change(Self.compliant))
        let refused = descriptor.refusals.filter { $0.code == .securityProfile }
        let hit = try #require(refused.first { $0.keyPath == contradiction.keyPath }, "refused: \(refused.map { ($0.keyPath ?? [], $0.message) })")
        #expect(hit.message.contains("FAPI 2.0 (`security.profile: fapi2`)"), "\(hit.message)")
        #expect(hit.message.contains(contradiction.says), "\(hit.message)")
        #expect(throws: ProviderError.self) { try descriptor.resolve() }
    }

    /// FAPI 2.0 Message Signing adds a signed request object and a JWT-secured response to the Security Profile; a
    /// descriptor claiming it without them is refused at each setting, and one with them resolves held to FAPI 2.0.
    @Test func messageSigningNeedsSignedRequestsAndResponses() throws {
        let claimed = Self.compliant.replacingOccurrences(of: "profile: fapi2\n", with: "profile: fapi2_message_signing\n")
        let bare = try Self.descriptor(claimed)
        let refused = bare.refusals.filter { $0.code == .securityProfile }
        #expect(refused.map(\.keyPath) == [["authorization", "request_object"], ["authorization", "response_mode"]], "\(refused.map(\.message))")
        #expect(refused.allSatisfy { $0.message.contains("FAPI 2.0 Message Signing (`security.profile: fapi2_message_signing`)") })
        #expect(throws: ProviderError.self) { try bare.resolve() }
        let signed = try Self.descriptor(claimed + "authorization:\n  request_object: always\n  response_mode: jwt\n")
        #expect(signed.refusals.isEmpty, "\(signed.refusals)")
        let provider = try signed.resolve()
        #expect(provider.policy.securityProfile == .fapi2MessageSigning)
        #expect(provider.pushesAuthorizationRequests && provider.issuerParameterRule == .required)
        #expect(provider.policy.responseAlgorithms.allSatisfy(ProviderDescriptor.SecurityProfile.fapi2Algorithms.contains))
        // The Security Profile's refusals hold under Message Signing too.
        let weakened = try Self.descriptor(
            claimed.replacingOccurrences(of: "methods: [private_key_jwt]", with: "methods: [client_secret_basic]")
                + "authorization:\n  request_object: always\n  response_mode: jwt\n")
        #expect(weakened.refusals.contains { $0.code == .securityProfile && $0.keyPath?.first == "client_auth" })
    }

    @Test func withoutTheProfileTheSameSettingsResolve() throws {
        let weak = Self.compliant.replacingOccurrences(of: "  profile: fapi2\n", with: "").replacingOccurrences(of: "dpop: required", with: "dpop: never")
            + "authorization:\n  pushed: never\n"
        let provider = try Self.descriptor(weak).resolve()
        #expect(provider.policy.securityProfile == nil)
        #expect(!provider.pushesAuthorizationRequests)
        #expect(provider.issuerParameterRule == .ifPresent)
        #expect(provider.policy.clientAssertion.algorithms.contains(.rs256))
    }

    /// A host that builds its provider in code sets the profile on the descriptor (its public `securityProfile`) before
    /// resolving it.
    @Test func aHostSetsTheProfileInCode() throws {
        var descriptor = try Self.descriptor(Self.compliant.replacingOccurrences(of: "  profile: fapi2\n", with: ""))
        #expect(descriptor.securityProfile == nil)
        descriptor.securityProfile = .fapi2
        #expect(descriptor.security.profile == .fapi2)
        #expect(try descriptor.resolve().policy.securityProfile == .fapi2)

        descriptor.authorization.pushed = .never
        descriptor.clientAuth.methods = [.clientSecretBasic]
        let error = try #require(throws: ProviderError.self) { try descriptor.resolve() }
        #expect(error.code == .securityProfile)
        #expect(error.keyPath == ["authorization", "pushed"])
    }

    /// The front door holds a provider to the profile its configuration names for it, whatever the descriptor says:
    /// a provider that follows FAPI 2.0 resolves held to it, one that contradicts it is refused, and a provider the
    /// configuration does not name is left as written.
    @Test func theConfigurationHoldsAProviderToAProfile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("bank.yaml", Self.compliant.replacingOccurrences(of: "  profile: fapi2\n", with: ""))
        try directory.write("shop.yaml", Self.compliant.replacingOccurrences(of: "  profile: fapi2\n", with: "").replacingOccurrences(of: "bank", with: "shop")
            .replacingOccurrences(of: "methods: [private_key_jwt]", with: "methods: [client_secret_basic]"))
        func oauth(_ profiles: [String: ProviderDescriptor.SecurityProfile]) -> OAuth {
            OAuth(OAuth.Configuration(providerDirectories: [directory.url], includeBundledProviders: false, securityProfiles: profiles))
        }
        let held = oauth(["bank": .fapi2, "shop": .fapi2])
        #expect(try held.resolve("bank", variables: [:]).policy.securityProfile == .fapi2)
        #expect(try held.descriptor("bank").securityProfile == .fapi2)
        let error = try #require(throws: ProviderError.self) { try held.resolve("shop", variables: [:]) }
        #expect(error.code == .securityProfile)
        #expect(error.keyPath == ["client_auth", "methods", "0"])

        let unheld = oauth(["bank": .fapi2])
        #expect(try unheld.resolve("shop", variables: [:]).policy.securityProfile == nil)
        #expect(try oauth([:]).resolve("bank", variables: [:]).policy.securityProfile == nil)
    }

    @Test func mutualTLSNeedsNoDPoP() throws {
        let text = Self.compliant.replacingOccurrences(of: "[private_key_jwt]", with: "[tls_client_auth, self_signed_tls_client_auth]")
            .replacingOccurrences(of: "  dpop: required\n", with: "")
        let descriptor = try Self.descriptor(text)
        #expect(descriptor.refusals.isEmpty, "\(descriptor.refusals)")
    }

    /// A `private_key_jwt` client whose tokens the provider binds to the certificate its token requests present
    /// (`tls_client_certificate_bound_access_tokens`) needs no DPoP; without the certificate in its configuration, the
    /// sign-in stops before anything is sent.
    @Test func certificateBoundTokensOfAKeyClientStandForDPoP() async throws {
        let text = Self.compliant.replacingOccurrences(of: "  dpop: required\n", with: "  tls_client_certificate_bound_access_tokens: true\n")
        let descriptor = try Self.descriptor(text)
        #expect(descriptor.refusals.isEmpty, "\(descriptor.refusals)")
        let provider = try descriptor.resolve()
        #expect(provider.policy.certificateBoundTokens && provider.policy.dpop.use == .never)
        // The JSON form keeps it.
        let copy = try JSONDecoder().decode(ProviderDescriptor.self, from: try JSONEncoder().encode(descriptor))
        #expect(copy.security.tlsClientCertificateBoundAccessTokens)

        let key = try ClientConfiguration.SigningKey(pem: P256.Signing.PrivateKey().pemRepresentation)
        let sent = RecordingTransport()
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "bank-app", redirectURI: URL(string: "http://127.0.0.1/callback"), signingKey: key),
            environment: OAuthEnvironment(transport: sent))
        let error = await #expect(throws: FlowError.self) { _ = try await client.startAuthorization() }
        #expect(error?.code == .certificateBinding && error?.message.contains("tls_client_certificate_bound_access_tokens") == true)
        #expect(sent.requests.isEmpty)
    }

    @Test func theProfileTravelsThroughJSON() throws {
        let descriptor = try Self.descriptor(Self.compliant)
        let decoded = try JSONDecoder().decode(ProviderDescriptor.self, from: JSONEncoder().encode(descriptor))
        #expect(decoded.security.profile == .fapi2)
        #expect(decoded.security == descriptor.security)
    }

    @Test func anUnknownProfileIsASchemaProblem() {
        let document = DescriptorDocument.parse(
            Data(Self.compliant.replacingOccurrences(of: "profile: fapi2", with: "profile: fapi1").utf8), path: "bank.yaml")
        #expect(document.descriptor == nil)
        #expect(document.problems.contains { $0.message.contains("fapi2") }, "\(document.problems)")
    }
}
