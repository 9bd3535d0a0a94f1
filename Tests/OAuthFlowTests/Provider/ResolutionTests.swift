import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

@Suite struct ResolutionTests {
    private func descriptor(_ extra: String, issuer: String = "https://{tenant}.example.com/{realm}") throws -> ProviderDescriptor {
        let text = """
            schema_version: 1
            id: example
            display_name: Example
            protocol: oauth2
            issuer: \(issuer)
            variables:
              tenant:
                description: Tenant
                pattern: '^[a-z0-9-]+$'
                example: acme
              realm:
                description: Realm
                enum: [main, test]
                default: main
            endpoints:
              authorization: https://{tenant}.example.com/{realm}/authorize
              token: https://{tenant}.example.com/{realm}/token
            \(extra)
            """
        return try #require(DescriptorDocument.parse(Data(text.utf8), path: "example.yaml").descriptor)
    }

    /// A placeholder no variable declares is named, not reported as a URL that does not form (a newcomer's finding).
    @Test func anUndeclaredPlaceholderIsNamed() throws {
        let text = "schema_version: 1\nid: undeclared\ndisplay_name: U\nprotocol: oauth2\nissuer: https://{tenant}.example.com\nendpoints:\n  authorization: https://a.example.com/authorize\n  token: https://a.example.com/token\n"
        let descriptor = try #require(DescriptorDocument.parse(Data(text.utf8), path: "undeclared.yaml").descriptor)
        let error = try #require(throws: ProviderError.self) { try descriptor.resolve() }
        #expect(error.code == .unknownVariable && error.variable == "tenant")
        #expect(error.message.contains("`issuer` of provider `undeclared` uses `{tenant}`"), "\(error.message)")
    }

    /// An endpoint the descriptor writes obeys the rules a discovered one does (RFC 6749 §3.1, §3.2): https, or http to
    /// this machine, and no fragment; a newcomer's `authorize-url` had sent the browser to plain http.
    @Test func aWrittenEndpointIsHTTPSOrLoopbackAndHasNoFragment() throws {
        func resolving(authorization: String, token: String = "https://auth.example.com/token", discovery: String? = nil) throws -> Provider {
            try TestDescriptor(
                id: "written", endpoints: [("authorization", authorization), ("token", token)],
                extra: discovery.map { "discovery:\n  url: \($0)\n" } ?? ""
            ).provider()
        }
        for (authorization, token, discovery, words) in [
            ("http://auth.example.com/authorize", "https://auth.example.com/token", nil, "plain http"),
            ("https://auth.example.com/authorize", "http://evil.example/token", nil, "plain http"),
            ("https://auth.example.com/authorize", "https://auth.example.com/token", "http://auth.example.com/.well-known/x", "plain http"),
            ("https://auth.example.com/authorize#login", "https://auth.example.com/token", nil, "fragment"),
            ("https://auth.example.com/authorize", "https://auth.example.com/token#", nil, "fragment"),
        ] as [(String, String, String?, String)] {
            let error = #expect(throws: ProviderError.self) { try resolving(authorization: authorization, token: token, discovery: discovery) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
        let local = try resolving(authorization: "http://127.0.0.1:8000/authorize", token: "http://localhost:8000/token")
        #expect(local.endpoints.token?.absoluteString == "http://localhost:8000/token")
    }

    /// Values are checked against the forbidden characters by a switch for ASCII: the same set, for every scalar.
    @Test func theForbiddenCharactersAreTheSetsForEveryScalar() {
        var differing: [String] = []
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value),
                ProviderDescriptor.isForbiddenInVariables(scalar) != ProviderDescriptor.forbiddenInVariables.contains(scalar)
            else { continue }
            differing.append(String(value, radix: 16))
        }
        #expect(differing.isEmpty, "U+\(differing)")
    }

    /// A value is judged by its bytes while they are ASCII, by its scalars from the first that is not: the same answer as
    /// its scalars' for every ASCII byte at the start, the middle or the end of a value, with or without text beyond
    /// ASCII before or after it.
    @Test func aValueIsJudgedByItsBytesAsByItsScalars() {
        var differing: [String] = []
        for byte in UInt8(0)...0x7F {
            let character = String(UnicodeScalar(byte))
            for value in [character, "tenant" + character, character + "tenant", "ten" + character + "ant", "é" + character, character + "é", "日本" + character + "x"] {
                let expected = value.unicodeScalars.contains(where: ProviderDescriptor.isForbiddenInVariables)
                if ProviderDescriptor.holdsForbiddenInVariables(value) != expected { differing.append(value.debugDescription) }
            }
        }
        for value in ["", "acme", "café", "\u{00A0}", "a\u{2028}b", "\u{FEFF}x"] {
            let expected = value.unicodeScalars.contains(where: ProviderDescriptor.isForbiddenInVariables)
            if ProviderDescriptor.holdsForbiddenInVariables(value) != expected { differing.append(value.debugDescription) }
        }
        #expect(differing.isEmpty, "\(differing)")
    }

    /// A profile field left at its default sources is not read again for each descriptor: those must all read.
    @Test func theDefaultProfileSourcesRead() throws {
        for (_, source) in ProviderDescriptor.Profile.standard.sources { _ = try ProfileSource(parsing: source) }
    }

    @Test func defaultsFillGaps() throws {
        let provider = try descriptor("").resolve(["tenant": "acme"])
        #expect(provider.endpoints.authorization?.absoluteString == "https://acme.example.com/main/authorize")
        #expect(provider.variables == ["tenant": "acme", "realm": "main"])
    }

    @Test func missingVariableNamesItAndShowsTheExample() throws {
        let error = try #require(throws: ProviderError.self) { try descriptor("").resolve() }
        #expect(error.code == .missingVariable)
        #expect(error.variable == "tenant")
        #expect(error.message.contains("for example `tenant=acme`"))
        #expect(!error.message.contains("--var"), "a library error names no CLI flag")
    }

    @Test func unknownVariableIsNamed() throws {
        let error = try #require(throws: ProviderError.self) { try descriptor("").resolve(["tenant": "a", "tenat": "b"]) }
        #expect(error.code == .unknownVariable)
        #expect(error.variable == "tenat")
        #expect(error.message.contains("did you mean `tenant`"))
    }

    @Test(arguments: [
        ["tenant": "ACME"],
        ["tenant": "acme", "realm": "prod"],
        ["tenant": "evil.com/x"],
        ["tenant": "a@evil.com"],
        ["tenant": "a?x=1"],
        ["tenant": "a#frag"],
        ["tenant": "a b"],
        ["tenant": "%2e%2e"],
        ["tenant": ""],

    ])
    func invalidValuesAreRejected(values: [String: String]) throws {
        let error = try #require(throws: ProviderError.self) { try descriptor("").resolve(values) }
        #expect(error.code == .invalidVariable)
    }

    /// A long value is quoted cut short, whichever check refuses it: a hostile or pasted value cannot flood the message.
    @Test(arguments: [
        ("tenant", String(repeating: "A", count: 5_000)),  // the pattern
        ("tenant", String(repeating: "a", count: 4_000) + "/x"),  // a character that changes the URL
        ("realm", String(repeating: "m", count: 3_000)),  // the enum
    ])
    func aLongRefusedValueIsQuotedShort(_ name: String, _ value: String) throws {
        let values = ["tenant": "acme"].merging([name: value]) { $1 }
        let error = try #require(throws: ProviderError.self) { try descriptor("").resolve(values) }
        #expect(error.code == .invalidVariable)
        #expect(error.message.count < 400, "\(error.message.count) characters")
        #expect(error.message.contains("(\(value.count) characters)"), "\(error.message)")
    }

    @Test func hostCannotBeHijackedThroughAnUnpatternedVariable() throws {
        let text = """
            schema_version: 1
            id: loose
            display_name: Loose
            protocol: oauth2
            issuer: https://{domain}
            variables:
              domain:
                description: Any domain
            endpoints:
              authorization: https://{domain}/authorize
              token: https://{domain}/token
            """
        let loose = try #require(DescriptorDocument.parse(Data(text.utf8), path: "loose.yaml").descriptor)
        for value in ["evil.com/steal?", "user:pass@evil.com", "evil.com#"] {
            #expect(throws: ProviderError.self) { try loose.resolve(["domain": value]) }
        }
    }

    /// A descriptor with one variable, `name`, and an authorization endpoint that uses it.
    private func oneVariable(_ name: String, required: Bool = true, authorization: String) throws -> ProviderDescriptor {
        let variable = "variables:\n  \(name):\n    description: V\n" + (required ? "" : "    required: false\n")
        let text = TestDescriptor(id: "one-variable", issuer: "https://a.example.com", extra: variable)
            .with(endpoints: [("authorization", authorization)]).yaml
        return try #require(DescriptorDocument.parse(Data(text.utf8), path: "one-variable.yaml").descriptor)
    }

    /// An unpatterned path variable cannot be a dot segment: `..` would move the path up a level
    /// (`/realms/../protocol`), `.` would leave it where it is; other values of dots are names.
    @Test func aPathVariableCannotBeADotSegment() throws {
        let realm = try oneVariable("realm", authorization: "https://a.example.com/realms/{realm}/auth")
        for value in [".", ".."] {
            let error = try #require(throws: ProviderError.self) { try realm.resolve(["realm": value]) }
            #expect(error.code == .invalidVariable, "\(value)")
            #expect(error.message.contains("dot segment"), "\(error.message)")
        }
        #expect(try realm.resolve(["realm": "..."]).endpoints.authorization?.absoluteString == "https://a.example.com/realms/.../auth")
        #expect(try realm.resolve(["realm": ".a"]).endpoints.authorization?.absoluteString == "https://a.example.com/realms/.a/auth")
    }

    /// A variable in a query (which lint refuses, but a descriptor may still carry) cannot add parameters.
    @Test func aVariableInAQueryCannotAddParameters() throws {
        let queried = try oneVariable("tenant", authorization: "https://a.example.com/authorize?tenant={tenant}")
        for value in ["x&prompt=none", "x#frag", "x=y", "x?z", "x;y", "x+y"] {
            let error = try #require(throws: ProviderError.self) { try queried.resolve(["tenant": value]) }
            #expect(error.code == .invalidVariable, "\(value)")
        }
        #expect(try queried.resolve(["tenant": "acme"]).endpoints.authorization?.absoluteString == "https://a.example.com/authorize?tenant=acme")
    }

    /// A `{port}` passes the template's check as a placeholder; the port its value makes is checked when it is resolved.
    @Test func aPortFromAVariableIsAPort() throws {
        let ported = try oneVariable("port", authorization: "https://a.example.com:{port}/authorize")
        for value in ["0", "65536", "99999", "9223372036854775808"] {
            let error = try #require(throws: ProviderError.self) { try ported.resolve(["port": value]) }
            #expect(error.code == .invalidURL, "\(value)")
            #expect(error.message.contains("not a number from 1 to 65535"), "\(error.message)")
        }
        #expect(try ported.resolve(["port": "8443"]).endpoints.authorization?.absoluteString == "https://a.example.com:8443/authorize")
    }

    /// A filled-in URL passes the check a fixed one does: a value cannot make an empty port, a host
    /// label beginning with `-`, or a URL past the length limit.
    @Test func aFilledInURLIsCheckedAsAFixedOneIs() throws {
        let tenanted = try oneVariable("tenant", authorization: "https://{tenant}.example.com/authorize")
        let hyphen = try #require(throws: ProviderError.self) { try tenanted.resolve(["tenant": "-a"]) }
        #expect(hyphen.message.contains("begins or ends with `-`"), "\(hyphen.message)")
        let long = try #require(throws: ProviderError.self) { try tenanted.resolve(["tenant": String(repeating: "a", count: 3_000)]) }
        #expect(long.message.contains("longer than 2048 bytes"), "\(long.message)")
        #expect(long.message.count < 300)
        let optionalPort = try oneVariable("port", required: false, authorization: "https://a.example.com:{port}/authorize")
        let empty = try #require(throws: ProviderError.self) { try optionalPort.resolve([:]) }
        #expect(empty.message.contains("no port"), "\(empty.message)")
    }

    @Test func rfc8414WellKnownGoesBetweenHostAndPath() throws {
        let issuer = try #require(URL(string: "https://as.example.com/tenant1"))
        #expect(ProviderDescriptor.wellKnownURL(issuer: issuer, mode: .rfc8414)?.absoluteString
            == "https://as.example.com/.well-known/oauth-authorization-server/tenant1")
        #expect(ProviderDescriptor.wellKnownURL(issuer: issuer, mode: .oidc)?.absoluteString
            == "https://as.example.com/tenant1/.well-known/openid-configuration")
        let slash = try #require(URL(string: "https://example.us.auth0.com/"))
        #expect(ProviderDescriptor.wellKnownURL(issuer: slash, mode: .oidc)?.absoluteString
            == "https://example.us.auth0.com/.well-known/openid-configuration")
        #expect(ProviderDescriptor.wellKnownURL(issuer: slash, mode: .none) == nil)
    }

    @Test func inlineResourcesUseVariables() throws {
        let provider = try descriptor("""
            resources:
              - scope: email
                title: Mail
                url: https://api.{tenant}.example.com/mail
              - scope: calendar
                title: Calendar
                url: https://api.{tenant}.example.com/calendar
            """).resolve(["tenant": "acme"])
        #expect(provider.resources.entries.map(\.url.absoluteString)
            == ["https://api.acme.example.com/mail", "https://api.acme.example.com/calendar"])
    }
}
