import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

extension Protection {
    /// ``IdentityAssertionGrantVerifier``: an authorization server's checks of an ID-JAG (issue 63 item 11), the grants
    /// signed here with the identity provider's key, its JWKS served in process. One acceptance, then one refusal per
    /// check, each seen failing: a grant that breaks one rule and keeps every other.
    @Suite struct IdentityAssertionGrantVerifierTests {
        static let issuer = "https://as.example.com"
        static let resource = "https://mcp.example.com/mcp"
        static let client = "mcp-agent"
        let clock = StoppedClock()
        let server = InProcessAuthorizationServer()
        let key: ProtectionKey

        init() async throws {
            key = try await .es256("idp-1")
            server.serveKeys([key])
        }

        func verifier(maximumLifetime: TimeInterval = 300) throws -> IdentityAssertionGrantVerifier {
            try IdentityAssertionGrantVerifier(
                identityProviders: [ProtectionSetup.provider(id: "corp-idp")],
                settings: .init(issuer: Self.issuer, resources: [Self.resource], maximumLifetime: maximumLifetime),
                environment: OAuthEnvironment(transport: server, clock: clock))
        }

        /// A grant valid now, its claims changed by `changes` (nil removes one), its header `typ` `type`.
        func grant(_ changes: [String: JSONValue?] = [:], type: String = "oauth-id-jag+jwt") throws -> Secret {
            let now = clock.now().timeIntervalSince1970
            var claims: [String: JSONValue] = [
                "iss": .string(ProtectionToken.issuer), "sub": .string("alice"), "aud": .string(Self.issuer), "client_id": .string(Self.client),
                "resource": .string(Self.resource), "jti": .string(UUID().uuidString), "iat": .number(now), "exp": .number(now + 120),
                "scope": .string("notes:read"),
            ]
            for (name, value) in changes { claims[name] = value }
            return Secret(try key.sign(claims, header: ["typ": .string(type)]))
        }

        func refusal(
            _ verifier: IdentityAssertionGrantVerifier, _ assertion: Secret, client: String = client, resource: String? = nil,
            proof: String? = nil
        ) async -> IdentityAssertionGrantVerifier.Refusal? {
            do {
                _ = try await verifier.verify(assertion, client: client, resource: resource, proofKeyThumbprint: proof)
                return nil
            } catch {
                return error
            }
        }

        @Test func aValidGrantIsRedeemedOnce() async throws {
            let verifier = try verifier()
            let assertion = try grant()
            let accepted = try await verifier.verify(assertion, client: Self.client, resource: Self.resource)
            #expect(accepted.subject == "alice" && accepted.clientID == Self.client && accepted.resource == Self.resource)
            #expect(accepted.scopes == ["notes:read"] && accepted.identityProvider == ProtectionToken.issuer && accepted.boundKeyThumbprint == nil)
            let replayed = await refusal(verifier, assertion)
            #expect(replayed?.error == "invalid_grant" && replayed?.reason.contains("presented before") == true, "\(String(describing: replayed))")
            #expect(server.jwksFetches == 1)
        }

        @Test(arguments: [
            ("typ", "typ"), ("several audiences", "aud"), ("another audience", "aud"), ("audience missing", "aud"), ("client", "client_id"),
            ("sub", "sub"), ("expired", "expired"), ("exp as text", "NumericDate"), ("future", "future"), ("lifetime", "lives longer"),
            ("nbf", "not valid yet"), ("resource", "resource"), ("jti", "jti"), ("untrusted issuer", "not a trusted"),
            ("cnf without proof", "no DPoP proof"), ("cnf of another kind", "cnf"),
        ])
        func aGrantBreakingOneRuleIsRefused(_ rule: String, _ reason: String) async throws {
            let verifier = try verifier()
            let now = clock.now().timeIntervalSince1970
            let assertion: Secret =
                switch rule {
                case "typ": try grant(type: "JWT")
                case "several audiences": try grant(["aud": .array([.string(Self.issuer), .string("https://other.example")])])
                case "another audience": try grant(["aud": .string("https://other.example")])
                case "audience missing": try grant(["aud": nil])
                case "client": try grant(["client_id": .string("someone-else")])
                case "sub": try grant(["sub": nil])
                case "expired": try grant(["iat": .number(now - 400), "exp": .number(now - 200)])
                case "exp as text": try grant(["exp": .string(String(Int(now + 120)))])
                case "future": try grant(["iat": .number(now + 120), "exp": .number(now + 240)])
                case "lifetime": try grant(["exp": .number(now + 3600)])
                case "nbf": try grant(["nbf": .number(now + 120)])
                case "resource": try grant(["resource": .string("https://other.example/mcp")])
                case "jti": try grant(["jti": nil])
                case "untrusted issuer": try grant(["iss": .string("https://unknown.example")])
                case "cnf without proof": try grant(["cnf": .object(["jkt": .string("thumbprint")])])
                default: try grant(["cnf": .object(["x5t#S256": .string("thumbprint")])])
                }
            let refused = await refusal(verifier, assertion)
            #expect(refused?.error == "invalid_grant" && refused?.reason.contains(reason) == true, "\(rule): \(String(describing: refused))")
        }

        @Test func theRequestsResourceAndTheProofMustMatchTheGrant() async throws {
            let verifier = try verifier()
            let other = await refusal(verifier, try grant(), resource: "https://mcp.example.com/other")
            #expect(other?.reason.contains("not the grant's") == true, "\(String(describing: other))")
            let bound = try grant(["cnf": .object(["jkt": .string("the-key")])])
            let wrong = await refusal(verifier, bound, proof: "another-key")
            #expect(wrong?.reason.contains("no DPoP proof") == true, "\(String(describing: wrong))")
            let accepted = try await verifier.verify(bound, client: Self.client, proofKeyThumbprint: "the-key")
            #expect(accepted.boundKeyThumbprint == "the-key")
        }

        /// A grant refused for another reason leaves its `jti` unrecorded: the same `jti` in a valid grant is redeemed.
        @Test func aRefusedGrantLeavesNoTrace() async throws {
            let verifier = try verifier()
            let jti = JSONValue.string("grant-1")
            #expect(await refusal(verifier, try grant(["jti": jti]), client: "someone-else") != nil)
            _ = try await verifier.verify(try grant(["jti": jti]), client: Self.client)
        }

        /// Hostile input: an oversized assertion is refused before it is decoded, and text that is no JWT is refused.
        @Test func anOversizedOrMalformedAssertionIsRefused() async throws {
            let verifier = try verifier()
            let huge = await refusal(verifier, Secret(String(repeating: "a", count: ProtectedResource.maximumTokenSize + 1)))
            #expect(huge?.reason.contains("larger than") == true, "\(String(describing: huge))")
            for text in ["", "a.b.c", "..", "\u{0}.\u{1}.\u{2}", "eyJhbGciOiJFUzI1NiJ9.e30"] {
                #expect(await refusal(verifier, Secret(text))?.error == "invalid_grant", "\(text)")
            }
            #expect(server.jwksFetches == 0)
        }

        @Test func aSignatureByAnotherKeyIsRefused() async throws {
            let verifier = try verifier()
            let stranger = try await ProtectionKey.es256("idp-1")
            let now = clock.now().timeIntervalSince1970
            let forged = try stranger.sign(
                [
                    "iss": .string(ProtectionToken.issuer), "sub": .string("alice"), "aud": .string(Self.issuer), "client_id": .string(Self.client),
                    "resource": .string(Self.resource), "jti": .string("forged"), "iat": .number(now), "exp": .number(now + 120),
                ], header: ["typ": .string("oauth-id-jag+jwt")])
            let refused = await refusal(verifier, Secret(forged))
            #expect(refused?.reason.contains("does not verify") == true, "\(String(describing: refused))")
        }

        @Test func aVerifierWithoutIdentityProvidersOrResourcesIsRefused() throws {
            #expect(throws: ProviderError.self) {
                try IdentityAssertionGrantVerifier(identityProviders: [], settings: .init(issuer: Self.issuer, resources: [Self.resource]))
            }
            #expect(throws: ProviderError.self) {
                try IdentityAssertionGrantVerifier(
                    identityProviders: [try ProtectionSetup.provider()], settings: .init(issuer: Self.issuer, resources: []))
            }
        }
    }
}
