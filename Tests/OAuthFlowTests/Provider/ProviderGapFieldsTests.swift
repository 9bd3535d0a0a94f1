import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// What the catalog's descriptors once called "not expressible" and the format now says (issue 55, item 15): fixed
/// browser parameters that name variables (FusionAuth's `tenantId`), a list inside the extra call's answer (Bitbucket's
/// `values`), granted scopes joined otherwise than asked (GitHub's and LinkedIn's commas), and a provider whose ID
/// tokens never carry the nonce (LinkedIn), declared rather than left unchecked.
@Suite struct ProviderGapFieldsTests {
    static func registry() throws -> ProviderRegistry {
        try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false)
    }

    static func query(_ url: URL) -> [(String, String)] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    static func client() throws -> ClientConfiguration {
        ClientConfiguration(clientID: "client-1", redirectURI: try #require(URL(string: "http://127.0.0.1:49152/callback")) as URL)
    }

    // MARK: - The catalog's word on what stays out

    /// No bundled descriptor says "not expressible" any more: what was is expressed, or its comment says "Left out" and
    /// names the entry of Docs/providers.md that says why and what the host does instead, which exists for it.
    @Test func whatStaysOutIsNamedInTheDocs() throws {
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/providers.md"), encoding: .utf8)
        let section = try #require(page.range(of: "\n## What the format leaves out, and why\n"), "Docs/providers.md has the section")
        let entries = page[section.upperBound...]
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("providers").path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
        var leftOut: [String] = []
        for file in descriptors {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent("providers/\(file)"), encoding: .utf8)
            #expect(!text.lowercased().contains("not expressible"), "\(file) still says it")
            guard text.contains("Left out (Docs/providers.md, \"What the format leaves out, and why\")") else { continue }
            let id = String(file.dropLast(5))
            leftOut.append(id)
            #expect(entries.contains("(`\(id)`)"), "Docs/providers.md has no entry for \(id)")
        }
        #expect(leftOut.count >= 10, "\(leftOut)")
    }

    // MARK: - Variables in fixed parameters

    /// FusionAuth with more than one tenant: `tenantId` goes in the authorization and end-session requests, filled from
    /// the variable; with one tenant (no value) neither request carries it. Before, the descriptor could not send it.
    @Test func fusionAuthSendsTheTenantWhenGivenOne() async throws {
        let descriptor = try Self.registry().descriptor(named: "fusionauth")
        let tenant = "f6f2ae2a-1c6e-4c3b-8e4e-4a1b2c3d4e5f"
        let provider = try descriptor.resolve(["host": "auth.example.com", "tenant_id": tenant])
        let pending = try PendingAuthorization.start(provider: provider, client: try Self.client())
        #expect(Self.query(pending.url).filter { $0.0 == "tenantId" }.map(\.1) == [tenant], "\(pending.url)")
        let client = OAuthClient(
            provider: provider, configuration: try Self.client(),
            environment: OAuthEnvironment(transport: ScriptedTransport { _, _ in TransportResponse(status: 500, body: Data()) }))
        let logout = try await client.endSessionRequest(idToken: nil, postLogoutRedirectURI: nil)
        #expect(Self.query(logout.url).filter { $0.0 == "tenantId" }.map(\.1) == [tenant], "\(logout.url)")

        let single = try descriptor.resolve(["host": "auth.example.com"])
        let untenanted = try PendingAuthorization.start(provider: single, client: try Self.client())
        #expect(!Self.query(untenanted.url).contains { $0.0 == "tenantId" }, "\(untenanted.url)")
        #expect(single.policy.logout.parameters["tenantId"] == nil)
        // The variable's pattern holds: a value that is no UUID is refused before anything is sent.
        #expect(throws: ProviderError.self) { try descriptor.resolve(["host": "auth.example.com", "tenant_id": "acme"]) }
    }

    /// A value filled into a fixed parameter is one parameter's value, however it is written: `&` and `=` are encoded,
    /// so it cannot add a parameter (a second `state`), and the variable rules still refuse `#`, `%` and spaces.
    @Test func aVariableValueStaysInsideItsParameter() throws {
        let descriptor = try TestDescriptor(
            extra: "variables:\n  org:\n    description: Organization\n    required: false\nauthorization:\n  extra_params:\n    org: 'o-{org}'\n"
        ).descriptor()
        let provider = try descriptor.resolve(["org": "a&state=forged=1"])
        let pending = try PendingAuthorization.start(provider: provider, client: try Self.client())
        let query = Self.query(pending.url)
        #expect(query.filter { $0.0 == "org" }.map(\.1) == ["o-a&state=forged=1"])
        #expect(query.filter { $0.0 == "state" }.map(\.1) == [pending.state.value])
        for value in ["a#b", "a%26b", "a b"] {
            #expect(throws: ProviderError.self) { try descriptor.resolve(["org": value]) }
        }
    }

    /// A placeholder must name a declared variable (refused at its parameter, `unknown_variable`); other braces are text
    /// (Twitch's `claims` JSON is sent as written).
    @Test func anUndeclaredVariableIsRefusedAndOtherBracesAreText() throws {
        let undeclared = try TestDescriptor(extra: "logout:\n  extra_params:\n    tenantId: '{tenant_id}'\n").descriptor()
        let refusal = try #require(undeclared.refusals.first)
        #expect(refusal.code == .unknownVariable && refusal.keyPath == ["logout", "extra_params", "tenantId"], "\(refusal)")
        #expect(throws: ProviderError.self) { try undeclared.resolve() }
        let twitch = try Self.registry().descriptor(named: "twitch")
        let claims = try #require(try twitch.resolve().policy.authorizationParameters["claims"])
        #expect(claims.hasPrefix("{\"id_token\":{") && claims == twitch.authorization.extraParams["claims"], "\(claims)")
    }

    // MARK: - A list inside the extra call's answer

    /// Bitbucket's /2.0/user/emails is a page whose `values` hold the addresses: the primary one is picked from there.
    @Test func theExtraCallPicksFromTheListItNames() throws {
        let page: JSONValue = .object([
            "pagelen": .number(10),
            "values": .array([
                .object(["email": .string("old@example.com"), "is_primary": .bool(false), "is_confirmed": .bool(true)]),
                .object(["email": .string("emma@example.com"), "is_primary": .bool(true), "is_confirmed": .bool(false)]),
            ]),
        ])
        let picked = try #require(UserProfile.pick(page, where: "is_primary", in: "values"))
        #expect(picked == .object(["email": .string("emma@example.com"), "is_primary": .bool(true), "is_confirmed": .bool(false)]))
        #expect(UserProfile.pick(page, where: "is_primary") == nil, "without `list`, an object answer holds no list")
        #expect(UserProfile.pick(.array([]), where: "is_primary", in: "values") == nil, "a list where an object was named")
        #expect(UserProfile.pick(.object(["values": .string("x")]), where: "is_primary", in: "values") == nil)
        let bitbucket = try Self.registry().descriptor(named: "bitbucket").resolve()
        #expect(bitbucket.profile.extraCallList == "values" && bitbucket.profile.extraCallPickWhere == "is_primary")
        let withoutPick = try TestDescriptor(
            extra: "profile:\n  subject: [extra.uuid]\n  extra_call:\n    url: https://api.example.com/emails\n    list: values\n"
        ).descriptor()
        #expect(withoutPick.refusals.map(\.keyPath) == [["profile", "extra_call", "list"]])
    }

    // MARK: - Granted scopes

    /// GitHub and LinkedIn grant `a,b` for a request that asked `a b`: `token_response.scope_separator` reads them one by
    /// one (before, the granted list was one scope, and the resource map matched none of it).
    @Test func grantedScopesAreSplitOnTheAnswersSeparator() throws {
        for (id, separator) in [("github", ","), ("linkedin", ","), ("reddit", ","), ("google", " ")] {
            let provider = try Self.registry().descriptor(named: id).resolve()
            #expect(provider.policy.scopes.grantedSeparator == separator, "\(id)")
        }
        let linkedin = try Self.registry().descriptor(named: "linkedin").resolve()
        let body = #"{"access_token":"AQU","expires_in":5183999,"scope":"email,openid,profile","token_type":"Bearer"}"#
        let tokens = try TokenResponseParser.tokenSet(
            from: TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)),
            format: .json, separator: linkedin.policy.scopes.grantedSeparator, requestedScopes: ["openid", "profile", "email"],
            previous: nil, now: Date())
        #expect(tokens.scopes == ["email", "openid", "profile"])
        let spaced = try TestDescriptor(extra: "token_response:\n  scope_separator: \",\"\n").provider()
        #expect(spaced.policy.scopes.separator == " " && spaced.policy.scopes.grantedSeparator == ",")
        let bad = DescriptorDocument.parse(Data((TestDescriptor().yaml + "token_response:\n  scope_separator: \";\"\n").utf8), path: "example.yaml")
        #expect(bad.descriptor == nil && bad.problems.contains { $0.location.line > 1 }, "\(bad.problems)")
    }

    // MARK: - The nonce

    /// An OpenID Connect provider may not turn the nonce off (its ID tokens would go unchecked for replay); one whose
    /// tokens never carry it says `nonce_echoed: false`, which means nothing outside OpenID Connect. Before, `nonce: false`
    /// resolved and the engine verified ID tokens without the nonce, with only lint to object.
    @Test func theNonceIsDeclaredNotSilentlyDropped() throws {
        let off = try TestDescriptor(protocol: .oidc, extra: "security:\n  nonce: false\n").descriptor()
        let refusal = try #require(off.refusals.first)
        #expect(refusal.keyPath == ["security", "nonce"] && refusal.code == .unsupportedPolicy, "\(refusal)")
        #expect(refusal.message.contains("nonce_echoed: false"), "\(refusal.message)")
        #expect(throws: ProviderError.self) { try off.resolve() }
        let plain = try TestDescriptor(extra: "security:\n  nonce_echoed: false\n").descriptor()
        #expect(plain.refusals.map(\.keyPath) == [["security", "nonce_echoed"]])
        let declared = try TestDescriptor(protocol: .oidc, extra: "security:\n  nonce_echoed: false\n").provider()
        #expect(declared.policy.nonce && !declared.policy.nonceEchoed)
        let linkedin = try Self.registry().descriptor(named: "linkedin").resolve()
        #expect(linkedin.isOpenIDConnect && linkedin.policy.nonce && !linkedin.policy.nonceEchoed)
        #expect(linkedin.policy.idTokenAlgorithms == [.rs256] && linkedin.endpoints.jwks != nil)
    }
}
