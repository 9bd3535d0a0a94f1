import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// The resolver turns the YAML model into typed policy, defaults applied, and refuses what the engine will not run.
@Suite struct ProviderPolicyTests {
    private func resolve(_ extra: String) throws -> Provider {
        try TestDescriptor(extra: extra).provider()
    }

    @Test func defaultsAreTypedValues() throws {
        let provider = try resolve("")
        let policy = provider.policy
        #expect(policy.grantTypes == [.authorizationCode, .refreshToken])
        #expect(policy.responseMode == .query)
        #expect(policy.pkce == .required)
        #expect(policy.nonce == false, "no nonce for plain OAuth")
        #expect(policy.issParameter == .ifPresent)
        #expect(policy.idTokenAlgorithms == [.rs256, .es256])
        #expect(policy.clientAuthMethods == [ProviderDescriptor.ClientAuthMethod.none])
        #expect(policy.tokenRequest.encoding == .form && policy.tokenResponseFormat == .json)
        #expect(policy.userinfo.method == .get)
        #expect(policy.scopes.separator == " " && policy.device.interval == 5)
        #expect(provider.loopback == Provider.Loopback(host: "127.0.0.1", port: .ephemeral, path: "/callback"))
        #expect(provider.isDiscovered, "no discovery asked for: nothing left to fetch")
    }

    /// The userinfo request stays package API; a host (and `providers show`) reads how it differs from a Bearer GET in
    /// one line.
    @Test func theUserinfoRequestIsSummedUpWhenItIsNotABearerGet() throws {
        #expect(try resolve("").policy.userinfoRequestSummary == nil)
        let unused = "userinfo:\n  token_parameter: oauth_token\n  content_type: application/json\n"
        #expect(try resolve(unused).policy.userinfoRequestSummary == nil, "a token parameter and a content type that nothing sends")
        let query = try resolve("userinfo:\n  placement: query\n  token_parameter: oauth_token\n  headers:\n    Accept: text/plain\n")
        #expect(query.policy.userinfoRequestSummary == "GET, the token in the query as `oauth_token`, headers Accept=text/plain")
        let post = try resolve("userinfo:\n  method: POST\n  scheme: \"\"\n  body: '{}'\n  content_type: application/json\n")
        #expect(post.policy.userinfoRequestSummary == "POST, the token alone in Authorization, body {} (application/json)")
    }

    @Test func oidcProvidersSendANonceByDefault() throws {
        let provider = try TestDescriptor(protocol: .oidc).provider()
        #expect(provider.policy.nonce && provider.isOpenIDConnect)
    }

    @Test func whatTheEngineWillNotRunIsRefusedByName() throws {
        let cases: [(String, String)] = [
            ("authorization:\n  response_type: token\n", "authorization.response_type"),
            ("security:\n  pkce_method: plain\n", "security.pkce_method"),
            ("grant_types: [authorization_code, password]\n", "`password`"),
        ]
        for (extra, named) in cases {
            let error = try #require(throws: ProviderError.self) { try resolve(extra) }
            #expect(error.code == .unsupportedPolicy)
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    /// Every refusal is kept with the key path of its setting (a list's item by index), in the order resolving meets
    /// them; resolving throws the first.
    @Test func everyRefusalIsKeptWithItsSetting() throws {
        let descriptor = try TestDescriptor(
            extra: "authorization:\n  response_type: token\ngrant_types: [authorization_code, implicit, device_code]\nsecurity:\n  pkce_method: plain\n"
        ).descriptor()
        let refusals = descriptor.refusals
        #expect(
            refusals.map(\.keyPath) == [
                ["authorization", "response_type"], ["security", "pkce_method"], ["grant_types", "1"], ["grant_types", "2"],
            ])
        #expect(refusals.allSatisfy { $0.code == .unsupportedPolicy && $0.providerID == descriptor.id })
        #expect(refusals[2].message.contains("the implicit grant must not be used (RFC 9700 §2.1.2)"), "\(refusals[2].message)")
        #expect(refusals[3].message.contains("`urn:ietf:params:oauth:grant-type:device_code`"), "\(refusals[3].message)")
        let thrown = try #require(throws: ProviderError.self) { try descriptor.resolve() }
        #expect(thrown == refusals.first)
        #expect(try TestDescriptor().descriptor().refusals.isEmpty)
    }

    @Test func theDeviceGrantAndHMACAlgorithmsAreTyped() throws {
        let provider = try resolve("""
            grant_types: [authorization_code, urn:ietf:params:oauth:grant-type:device_code]
            security:
              id_token_algs: [HS384, PS256]
            """)
        #expect(provider.policy.supportsDeviceFlow)
        #expect(provider.policy.grantTypes.map(\.shortName) == ["authorization_code", "device_code"])
        #expect(provider.policy.idTokenAlgorithms == [.hs384, .ps256])
        #expect(JWSAlgorithm.hs384.isHMAC && !JWSAlgorithm.ps256.isHMAC && JWSAlgorithm.hs384.digestBits == 384)
    }

    @Test func serviceGrantsClientAssertionsAndTheTargetAreTyped() throws {
        let provider = try resolve("""
            grant_types: [client_credentials, urn:ietf:params:oauth:grant-type:jwt-bearer, urn:ietf:params:oauth:grant-type:token-exchange]
            client_auth:
              methods: [private_key_jwt, client_secret_jwt, tls_client_auth, self_signed_tls_client_auth]
              assertion_audience: token_endpoint
              assertion_algs: [ES256, HS256]
            service_tokens:
              target: scope
              scope_suffix: /default
            """)
        let policy = provider.policy
        #expect(policy.grantTypes == [.clientCredentials, .jwtBearer, .tokenExchange])
        #expect(policy.grantTypes.map(\.shortName) == ["client_credentials", "jwt-bearer", "token-exchange"])
        #expect(policy.clientAuthMethods == [.privateKeyJWT, .clientSecretJWT, .tlsClientAuth, .selfSignedTLSClientAuth])
        #expect(policy.clientAssertion == .init(audience: .tokenEndpoint, algorithms: [.es256, .hs256]))
        #expect(policy.serviceTokens == .init(target: .scope, scopeSuffix: "/default"))

        let defaults = try resolve("").policy
        #expect(defaults.clientAssertion == .init(audience: .issuer, algorithms: [.rs256, .ps256, .es256, .eddsa, .hs256]), "the issuer is the safe default")
        #expect(defaults.serviceTokens == .init(target: .resource, scopeSuffix: "/.default"))

        // The file's schema refuses an algorithm it does not sign with, at its place; the resolver refuses it from any other decoder.
        let yaml = TestDescriptor(extra: "client_auth:\n  methods: [private_key_jwt]\n  assertion_algs: [RS384]\n").yaml
        let problems = DescriptorDocument.parse(Data(yaml.utf8), path: "example.yaml").problems.map { "\($0)" }
        #expect(problems == ["example.yaml:11:20: `RS384` is not allowed here; expected one of `RS256`, `PS256`, `ES256`, `EdDSA`, `HS256`"])
        var decoded = try TestDescriptor(extra: "client_auth:\n  methods: [private_key_jwt]\n").descriptor()
        decoded.clientAuth.assertionAlgs = ["RS384"]
        let error = try #require(throws: ProviderError.self) { try decoded.resolve([:]) }
        #expect(error.code == .unsupportedPolicy && error.message.contains("client_auth.assertion_algs"), "\(error.message)")
    }

    @Test func theLoopbackRedirectIsWrittenOneWay() throws {
        let localhost = try resolve("redirect:\n  loopback:\n    host: localhost\n    port: 8400\n    path: /cb\n").loopback
        #expect(localhost.host == "127.0.0.1", "RFC 8252 §8.3: localhost binds and names 127.0.0.1")
        #expect(localhost.uri(port: 8400)?.absoluteString == "http://127.0.0.1:8400/cb")
        #expect(localhost.display == "http://127.0.0.1:8400/cb")
        let six = try resolve("redirect:\n  loopback:\n    host: '::1'\n").loopback
        #expect(six.uri(port: 9000)?.absoluteString == "http://[::1]:9000/callback")
        #expect(six.display == "http://[::1]:<ephemeral port>/callback")
        #expect(six.fixedPort == nil)
    }

    /// A multi-tenant provider's descriptor: the issuer names the tenant by a variable, the ID token issuer template by
    /// the token's `tid`.
    private func multiTenant(_ tenant: String) throws -> Provider {
        let issuer = "https://auth.example.com/{tenant}/v2.0"
        let descriptor = TestDescriptor(
            id: "multi", protocol: .oidc, issuer: issuer,
            endpoints: [("authorization", "https://auth.example.com/{tenant}/authorize"), ("token", "https://auth.example.com/{tenant}/token"),
                ("jwks", "https://auth.example.com/{tenant}/keys"),
            ],
            extra: """
                variables:
                  tenant:
                    description: The tenant
                    pattern: '^[A-Za-z0-9.-]+$'
                    default: common
                security:
                  issuer_aliases: [auth.example.com]
                  id_token_issuer: https://auth.example.com/{tid}/v2.0
                  multi_tenant_values: [common, organizations]

                """)
        return try descriptor.provider(["tenant": tenant])
    }

    @Test func theIssuerMatcherKeepsAliasesAndTemplates() throws {
        let provider = try multiTenant("common")
        #expect(provider.isIssuer("https://auth.example.com/common/v2.0") && provider.isIssuer("auth.example.com"))
        #expect(provider.issuers.matchesIDToken("https://auth.example.com/t1/v2.0", claims: ["tid": .string("t1")]))
        #expect(!provider.issuers.matchesIDToken("https://auth.example.com/t1/v2.0", claims: ["tid": .string("t1/../x")]))
        #expect(provider.issuers.matchesDiscovery("https://auth.example.com/{tenantid}/v2.0"))
    }

    /// A template that could never apply is refused when the descriptor is resolved, not left to refuse every ID token
    /// of a multi-tenant sign-in as another issuer's (a copy of an older Entra descriptor); so is a list of values with no
    /// template. Entra's tenant is a GUID in lower case or one of the three: a domain names no issuer its tokens carry.
    @Test func anIssuerTemplateThatCouldNeverApplyIsRefused() throws {
        let orphan = try #require(throws: ProviderError.self) { try resolve("security:\n  id_token_issuer: https://auth.example.com/{tid}/v2.0\n") }
        #expect(orphan.message.contains("multi_tenant_values"), "\(orphan.message)")
        let values = try #require(throws: ProviderError.self) { try resolve("security:\n  multi_tenant_values: [common]\n") }
        #expect(values.message.contains("id_token_issuer"), "\(values.message)")
        let entra = try ProviderRegistry.load(environment: ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]).descriptor(named: "microsoft")
        for tenant in ["contoso.onmicrosoft.com", "11111111-2222-3333-4444-55555555555A", "Common"] {
            #expect(throws: ProviderError.self, "\(tenant)") { try entra.resolve(["tenant": tenant]) }
        }
    }

    /// With one tenant named, only its own issuer passes: a template filled from a token's own `tid` let another
    /// tenant's token through an API meant for one (Entra signs every tenant's tokens with the same keys).
    @Test func oneTenantAcceptsItsOwnIssuerOnly() throws {
        let own = "11111111-2222-3333-4444-555555555555"
        let provider = try multiTenant(own)
        #expect(provider.isIDTokenIssuer("https://auth.example.com/\(own)/v2.0", claims: ["tid": .string(own)]))
        #expect(!provider.isIDTokenIssuer("https://auth.example.com/99999999-0000-0000-0000-000000000000/v2.0", claims: ["tid": .string("99999999-0000-0000-0000-000000000000")]))
        #expect(!provider.isDiscoveryIssuer("https://auth.example.com/{tenantid}/v2.0"))
        // The bundled Entra descriptor, the same way.
        let entra = try ProviderRegistry.load(environment: ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]).descriptor(named: "microsoft").resolve(["tenant": own])
        let foreign = "99999999-0000-0000-0000-000000000000"
        #expect(!entra.isIDTokenIssuer("https://login.microsoftonline.com/\(foreign)/v2.0", claims: ["tid": .string(foreign)]))
        #expect(entra.isIDTokenIssuer("https://login.microsoftonline.com/\(own)/v2.0", claims: ["tid": .string(own)]))
        let common = try ProviderRegistry.load(environment: ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]).descriptor(named: "microsoft").resolve(["tenant": "common"])
        #expect(common.isIDTokenIssuer("https://login.microsoftonline.com/\(foreign)/v2.0", claims: ["tid": .string(foreign)]))
    }
}
