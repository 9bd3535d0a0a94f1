import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// `oauthflow providers add`'s library half: an issuer's metadata read, checked and drafted into a descriptor.
@Suite struct DescriptorDraftTests {
    static let issuer = "https://sso.example.com/realms/ops"
    static let readAt = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01

    /// A Keycloak-like document; `extra` members are added (or replace those already there, by name; `NSNull()` removes one).
    static func document(issuer: String = issuer, _ extra: [String: Any] = [:]) -> String {
        var members: [String: Any] = [
            "issuer": issuer,
            "authorization_endpoint": "\(issuer)/protocol/openid-connect/auth",
            "token_endpoint": "\(issuer)/protocol/openid-connect/token",
            "userinfo_endpoint": "\(issuer)/protocol/openid-connect/userinfo",
            "jwks_uri": "\(issuer)/protocol/openid-connect/certs",
            "end_session_endpoint": "\(issuer)/protocol/openid-connect/logout",
            "revocation_endpoint": "\(issuer)/protocol/openid-connect/revoke",
            "grant_types_supported": ["authorization_code", "implicit", "refresh_token", "password", "client_credentials"],
            "code_challenge_methods_supported": ["plain", "S256"],
            "token_endpoint_auth_methods_supported": [
                "private_key_jwt", "client_secret_basic", "client_secret_post", "tls_client_auth", "client_secret_jwt",
            ],
            "token_endpoint_auth_signing_alg_values_supported": ["PS384", "ES256", "RS256", "HS256"],
            "id_token_signing_alg_values_supported": ["PS384", "RS256", "HS256", "none"],
            "scopes_supported": ["openid", "profile", "email", "offline_access", "roles"],
            "authorization_response_iss_parameter_supported": true,
            "backchannel_logout_supported": true,
            "backchannel_logout_session_supported": true,
        ]
        for (key, value) in extra { members[key] = value is NSNull ? nil : value }
        let data = (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Answers the OpenID document at its path with `oidc` and RFC 8414 metadata with `rfc8414`; 404 for nil.
    static func server(oidc: String?, rfc8414: String? = nil, status: Int = 200) -> ScriptedTransport {
        ScriptedTransport { request, _ in
            let body =
                request.url.path.hasSuffix("/openid-configuration")
                ? oidc : request.url.path.hasPrefix("/.well-known/oauth-authorization-server") ? rfc8414 : nil
            guard let body else { return TransportResponse(status: 404) }
            return TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
    }

    static func read(_ transport: ScriptedTransport, issuer: String = issuer, id: String? = nil) async throws -> DescriptorDraft {
        try await DescriptorDraft.read(issuer: issuer, id: id, environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: readAt)))
    }

    @Test func theDraftStatesWhatTheDocumentSays() async throws {
        let draft = try await Self.read(Self.server(oidc: Self.document()))
        #expect(draft.id == "sso-example-com-realms-ops")
        #expect(draft.discoveryMode == .oidc)
        #expect(draft.metadataURL.absoluteString == "https://sso.example.com/realms/ops/.well-known/openid-configuration")
        let text = draft.text
        #expect(
            text.hasPrefix(
                "# Written by OAuthFlow (`oauthflow providers add`) from the discovery document of\n#   https://sso.example.com/realms/ops\n"))
        #expect(text.contains("on 2026-01-01 (UTC)."))
        for line in [
            "issuer: \"https://sso.example.com/realms/ops\"", "protocol: oidc", "  mode: oidc",
            "  default: [openid, profile, email]", "    scopes: [offline_access]", "      prompt: consent",
            // OAuthFlow's grants only, never implicit or password.
            "grant_types: [authorization_code, refresh_token, client_credentials]",
            // No `none`: the server lists none; the secret methods before assertions and certificates.
            "  methods: [client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt, tls_client_auth]",
            "  assertion_algs: [RS256, ES256, HS256]",
            "  pkce: required", "  iss_parameter: required",
            // The asymmetric algorithms the server signs ID tokens with, in its order: never none or HMAC.
            "  id_token_algs: [PS384, RS256]",
            "  backchannel_logout_supported: true", "  backchannel_logout_session_supported: true",
        ] {
            #expect(text.contains(line + "\n"), "missing `\(line)` in\n\(text)")
        }
        #expect(!text.contains("lacks"), "the document names revocation and end-session endpoints")
        #expect(!text.contains("dpop"))
        #expect(draft.notes.contains { $0.contains("`none` is not among") })
    }

    /// EdDSA (RFC 8037) carries over wherever the server lists it; the curve is the key's, and an Ed448 key is refused when
    /// the JWKS is read.
    @Test func eddsaCarriesOverToEveryAlgorithmList() async throws {
        let document = Self.document([
            "id_token_signing_alg_values_supported": ["EdDSA", "RS256"], "token_endpoint_auth_signing_alg_values_supported": ["EdDSA", "ES256"],
            "dpop_signing_alg_values_supported": ["EdDSA"],
        ])
        let draft = try await Self.read(Self.server(oidc: document))
        for line in ["  id_token_algs: [EdDSA, RS256]", "  assertion_algs: [ES256, EdDSA]", "  dpop_signing_alg_values_supported: [EdDSA]"] {
            #expect(draft.text.contains(line + "\n"), "missing `\(line)` in\n\(draft.text)")
        }
        let parsed = DescriptorDocument.parse(Data(draft.text.utf8), path: "\(draft.id).yaml")
        let provider = try #require(parsed.descriptor, "\(parsed.problems)").resolve([:])
        #expect(provider.policy.idTokenAlgorithms == [.eddsa, .rs256])
        #expect(provider.policy.dpop.algorithms == [.eddsa])
    }

    @Test func theDraftResolvesAndTakesItsEndpointsFromTheLiveDocument() async throws {
        let transport = Self.server(oidc: Self.document())
        let draft = try await Self.read(transport)
        let document = DescriptorDocument.parse(Data(draft.text.utf8), path: "\(draft.id).yaml")
        let descriptor = try #require(document.descriptor, "\(document.problems)")
        let provider = try await descriptor.resolve([:]).discovered(environment: OAuthEnvironment(transport: transport))
        #expect(provider.issuer?.absoluteString == Self.issuer)
        #expect(provider.endpoints.token?.absoluteString == "\(Self.issuer)/protocol/openid-connect/token")
        #expect(provider.endpoints.endSession?.absoluteString == "\(Self.issuer)/protocol/openid-connect/logout")
        #expect(provider.policy.issParameter == .required)
    }

    @Test func rfc8414MetadataIsReadWhenThereIsNoOpenIDDocument() async throws {
        let issuer = "https://as.example.com/tenant"
        let rfc8414 =
            #"{"issuer":"https://as.example.com/tenant","authorization_endpoint":"https://as.example.com/tenant/authorize","token_endpoint":"https://as.example.com/tenant/token","code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none","client_secret_basic"],"dpop_signing_alg_values_supported":["ES256","EdDSA"]}"#
        let transport = Self.server(oidc: nil, rfc8414: rfc8414)
        let draft = try await Self.read(transport, issuer: issuer)
        #expect(draft.discoveryMode == .rfc8414)
        #expect(draft.metadataURL.absoluteString == "https://as.example.com/.well-known/oauth-authorization-server/tenant")
        #expect(draft.text.contains("protocol: oauth2\n"))
        #expect(draft.text.contains("  mode: rfc8414\n"))
        #expect(draft.text.contains("  lacks: [revocation]\n"))
        #expect(draft.text.contains("  methods: [none, client_secret_basic]\n"))
        #expect(draft.text.contains("  dpop: if_supported\n  dpop_signing_alg_values_supported: [ES256, EdDSA]\n"))
        #expect(!draft.text.contains("openid"))
        #expect(transport.count("/tenant/.well-known/openid-configuration") == 1)
    }

    @Test func aRevocationEndpointOnlyInTheRFC8414DocumentIsNotCalledMissing() async throws {
        let oidc = Self.document(["revocation_endpoint": NSNull()])
        let rfc8414 = #"{"issuer":"https://sso.example.com/realms/ops","revocation_endpoint":"https://sso.example.com/realms/ops/revoke"}"#
        let with = try await Self.read(Self.server(oidc: oidc, rfc8414: rfc8414))
        #expect(!with.text.contains("lacks"), "\(with.text)")
        let without = try await Self.read(Self.server(oidc: oidc))
        #expect(without.text.contains("  lacks: [revocation]\n"), "\(without.text)")
    }

    /// Documents a draft must refuse, and why.
    static let hostile: [(name: String, body: String, code: DiscoveryError.Code, says: String)] = [
        ("another issuer", document(["issuer": "https://evil.example.com"]), .issuerMismatch, "names the issuer `https://evil.example.com`"),
        ("a trailing slash", document(["issuer": issuer + "/"]), .issuerMismatch, "a trailing slash included"),
        ("an http endpoint", document(["token_endpoint": "http://sso.example.com/token"]), .insecureEndpoint, "as its token_endpoint"),
        ("an http jwks_uri", document(["jwks_uri": "http://10.0.0.1/certs"]), .insecureEndpoint, "as its jwks_uri"),
        ("more than 1 MiB", document(["padding": String(repeating: "x", count: 1 << 20)]), .invalidDocument, "larger than 1 MiB"),
        ("not JSON", "<html><body>Welcome</body></html>", .invalidDocument, "not a JSON object"),
        ("a JSON array", "[\"issuer\"]", .invalidDocument, "not a JSON object"),
        (
            "a repeated issuer",
            #"{"issuer":"https://evil.example.com","issuer":"https://sso.example.com/realms/ops","token_endpoint":"https://sso.example.com/t"}"#,
            .invalidDocument, "names `issuer` twice"
        ),
        ("an issuer of the wrong type", #"{"issuer":["https://sso.example.com/realms/ops"]}"#, .invalidDocument, "wrong type"),
        ("plain PKCE only", document(["code_challenge_methods_supported": ["plain"]]), .invalidDocument, "lacks S256"),
        (
            "HMAC ID tokens only", document(["id_token_signing_alg_values_supported": ["HS256", "none"]]), .invalidDocument,
            "id_token_signing_alg_values_supported"
        ),
        ("no grant OAuthFlow uses", document(["grant_types_supported": ["implicit", "password"]]), .invalidDocument, "grant_types_supported"),
        (
            "no method OAuthFlow has", document(["token_endpoint_auth_methods_supported": ["client_secret_magic"]]), .invalidDocument,
            "token_endpoint_auth_methods_supported"
        ),
        ("no jwks_uri", document(["jwks_uri": NSNull()]), .invalidDocument, "jwks_uri"),
    ]

    @Test(arguments: hostile.indices)
    func aHostileDocumentIsRefused(_ index: Int) async throws {
        let (name, body, code, says) = Self.hostile[index]
        let error = try await #require(throws: DiscoveryError.self, "\(name)") { try await Self.read(Self.server(oidc: body)) }
        #expect(error.code == code, "\(name): \(error)")
        #expect(error.message.contains(says), "\(name): \(error)")
    }

    @Test func controlCharactersFromTheServerNeverReachTheFileOrAMessage() async throws {
        let escape = "\u{1B}[2J\u{1B}]0;owned\u{07}\n# forged: true\u{202E}"
        // In lists the draft picks from and in members it never reads: left behind.
        let listed = Self.document([
            "scopes_supported": ["openid", "profile" + escape, "email"], "token_endpoint_auth_methods_supported": ["none", escape],
            "grant_types_supported": ["authorization_code", escape], "service_documentation": escape,
        ])
        let draft = try await Self.read(Self.server(oidc: listed))
        #expect(!draft.text.unicodeScalars.contains { TerminalText.needsEscape($0) && $0 != "\n" }, "\(draft.text)")
        #expect(!draft.text.contains("forged"))
        #expect(draft.text.contains("  default: [openid, email]\n"))
        // In the issuer: refused, and the message shows the escapes, never the characters.
        let error = try await #require(throws: DiscoveryError.self) {
            try await Self.read(Self.server(oidc: Self.document(["issuer": "https://sso.example.com" + escape])))
        }
        #expect(error.code == .issuerMismatch)
        #expect(error.message.contains("\\x1B[2J"), "\(error)")
        #expect(!error.message.unicodeScalars.contains { TerminalText.needsEscape($0) }, "\(error)")
    }

    static let badIssuers = [
        "http://sso.example.com", "https://sso.example.com/?tenant=a", "https://sso.example.com/#x", "https://user@sso.example.com",
        "https://{tenant}.example.com", "sso.example.com", "https://sso.example.com/\u{1B}[31m", "https://sso.example.com/ x", "",
    ]

    @Test(arguments: badIssuers)
    func anIssuerThatCannotBeOneIsRefusedBeforeAnythingIsSent(_ issuer: String) async throws {
        let transport = Self.server(oidc: Self.document(issuer: issuer))
        let error = try await #require(throws: DiscoveryError.self) { try await Self.read(transport, issuer: issuer) }
        #expect(error.code == .invalidIssuer, "\(error)")
        #expect(!error.message.unicodeScalars.contains { TerminalText.needsEscape($0) }, "\(error)")
        #expect(transport.count("/.well-known/openid-configuration") == 0)
    }

    @Test func anIDThatCannotNameAProviderIsRefused() async throws {
        let error = try await #require(throws: ProviderError.self) { try await Self.read(Self.server(oidc: Self.document()), id: "../Ops") }
        #expect(error.code == .invalidDescriptor)
        #expect(try await Self.read(Self.server(oidc: Self.document()), id: "ops").id == "ops")
    }

    @Test func noDocumentAtEitherAddressIsUnreachable() async throws {
        let error = try await #require(throws: DiscoveryError.self) { try await Self.read(Self.server(oidc: nil)) }
        #expect(error.code == .unreachable)
        #expect(error.message.contains("openid-configuration answered HTTP 404"), "\(error)")
        #expect(error.message.contains("oauth-authorization-server/realms/ops answered HTTP 404"), "\(error)")
        let down = ScriptedTransport { request, _ in throw TransportError(.unreachable, url: request.url, message: "connection refused") }
        let refused = try await #require(throws: DiscoveryError.self) { try await Self.read(down) }
        #expect(refused.code == .unreachable)
        #expect(down.count("/.well-known/oauth-authorization-server/realms/ops") == 0, "no answer at all is not a missing document")
    }

    /// Issue 61, item 12: an introspection endpoint gives an `access_tokens` section whose audience is left to the API,
    /// an end-session endpoint the post-logout redirect URI to register, and the notes name the flags.
    @Test func theDraftChecksTokensByIntrospectionAndNamesThePostLogoutURI() async throws {
        let introspecting = Self.document([
            "introspection_endpoint": "\(Self.issuer)/protocol/openid-connect/token/introspect",
            "token_endpoint_auth_methods_supported": ["client_secret_basic"], "scopes_supported": ["openid"],
        ])
        let draft = try await Self.read(Self.server(oidc: introspecting))
        #expect(draft.text.hasSuffix("access_tokens:\n  format: opaque\n  # audience: the `aud` your API's tokens carry, which the server's document cannot state (RFC 9068 §4)\n"), "\(draft.text)")
        #expect(!draft.text.contains("  audience:"), "an audience is never assumed")
        #expect(draft.postLogoutRedirectURI?.absoluteString == "http://127.0.0.1:8765/logged-out")
        #expect(draft.notes.contains { $0.contains("post-logout redirect URI http://127.0.0.1:8765/logged-out") })
        // Each rewrite command names the issuer, so that it runs as printed.
        #expect(draft.notes.contains { $0.contains("`oauthflow providers add ") && $0.contains(" --public-client --force`") })
        #expect(draft.notes.contains { $0.contains("`oauthflow providers add ") && $0.contains(" --offline-access --force`") })
        #expect(!draft.notes.contains { $0.contains("`oauthflow providers add --") })
        #expect(!draft.notes.contains { $0.contains("assuming so") })

        let plain = try await Self.read(Self.server(oidc: Self.document(["end_session_endpoint": NSNull()])))
        #expect(!plain.text.contains("access_tokens"), "no introspection endpoint, no section")
        #expect(plain.postLogoutRedirectURI == nil)
    }

    /// The port is kept (issue 61, item 12): two servers on one host get two ids, not one file that each overwrites.
    @Test func aSuggestedIDIsMadeOfTheHostPortAndPath() throws {
        #expect(DescriptorDraft.suggestedID(for: try #require(URL(string: "https://Login.Example.COM"))) == "login-example-com")
        #expect(DescriptorDraft.suggestedID(for: try #require(URL(string: "http://127.0.0.1:8080/o/"))) == "127-0-0-1-8080-o")
        #expect(DescriptorDraft.suggestedID(for: try #require(URL(string: "http://127.0.0.1:8081/o/"))) == "127-0-0-1-8081-o")
        #expect(DescriptorDraft.isValidID("login-example-com"))
        #expect(!DescriptorDraft.isValidID("-x") && !DescriptorDraft.isValidID("A") && !DescriptorDraft.isValidID("a/b"))
    }

    /// The ids MCP sessions are keyed by: one per exact issuer, where the suggested id folds port, scheme and
    /// punctuation away (what let one server's refresh token be loaded for another).
    @Test(arguments: [
        ("http://127.0.0.1:8001", "http://127.0.0.1:8002"), ("https://auth.example.com", "https://auth-example.com"),
        ("https://idp.example/tenant.a", "https://idp.example/tenant-a"), ("https://idp.example", "http://idp.example"),
        ("https://idp.example/a", "https://idp.example/a/"),
    ])
    func anExactIDNamesOneIssuer(_ first: String, _ second: String) throws {
        let (a, b) = (try #require(URL(string: first)), try #require(URL(string: second)))
        let (idA, idB) = (DescriptorDraft.exactID(prefix: "mcp-", for: a), DescriptorDraft.exactID(prefix: "mcp-", for: b))
        #expect(idA != idB)
        #expect(DescriptorDraft.isValidID(idA) && DescriptorDraft.isValidID(idB) && idA.hasPrefix("mcp-"))
        #expect(idA == DescriptorDraft.exactID(prefix: "mcp-", for: a), "the same issuer, the same id, in every process")
        let long = try #require(URL(string: "https://idp.example/" + String(repeating: "segment/", count: 40)))
        #expect(DescriptorDraft.exactID(prefix: "mcp-", for: long).count <= 100)
    }
}
