import Foundation
import OAuthFlow

/// Tokens and codes travel only over TLS, except to this machine.
struct HTTPSEndpointsRule: LintRule {
    static let description = RuleDescription(
        identifier: "https_endpoints", name: "HTTPS endpoints",
        summary: "Every URL must use https; plain http is allowed only for loopback hosts (RFC 9700 §2.6, RFC 8414 §2).",
        severity: .error,
        triggering: [
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: http://auth.example.com/token\n"
        ],
        nonTriggering: [
            Examples.valid,
            Examples.header
                + "issuer: http://127.0.0.1:8000/o\nendpoints:\n  authorization: http://127.0.0.1:8000/o/authorize/\n  token: http://localhost:8000/o/token/\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        // Each URL read in place, by position: a closure handed each one copied its key path and template out.
        for field in file.urls.indices where file.urls[field].template.schemeIsHTTP.http && !file.urls[field].template.isLoopback {
            let keyPath = file.urls[field].keyPath
            diagnostics.append(
                diagnostic(file, keyPath, "`\(keyPath.joined(separator: "."))` uses plain http; use https (http is only for loopback hosts)"))
        }
        return diagnostics
    }
}

/// RFC 6749 §3.1 and §3.2: an endpoint's URI has no fragment.
struct EndpointFragmentRule: LintRule {
    static let description = RuleDescription(
        identifier: "endpoint_fragment", name: "Endpoints without a fragment",
        summary:
            "An endpoint (and `discovery.url`) must have no fragment (`#...`): RFC 6749 §3.1 and §3.2 forbid one, and resolving a provider whose endpoint has one fails.",
        severity: .error,
        triggering: [
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize#login\n  token: https://auth.example.com/token\n"
        ],
        nonTriggering: [Examples.valid])

    func validate(_ file: LintFile) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for field in file.urls.indices {
            switch file.urls[field].setting {
            case .endpoint, .discovery: break
            default: continue
            }
            // By byte: `contains("#")` on a `String` is Foundation's substring search, 3% of a lint, which also passes a
            // `#` that a combining mark follows.
            guard UTF8Search.contains(UInt8(ascii: "#"), in: file.urls[field].template.text) else { continue }
            let keyPath = file.urls[field].keyPath
            diagnostics.append(
                diagnostic(
                    file, keyPath, "`\(keyPath.joined(separator: "."))` has a fragment (`#...`), which an endpoint may not have (RFC 6749 §3.1)"))
        }
        return diagnostics
    }
}

/// RFC 8414 §2: the issuer has no query or fragment.
struct IssuerNoQueryOrFragmentRule: LintRule {
    static let description = RuleDescription(
        identifier: "issuer_no_query_or_fragment", name: "Issuer without query or fragment",
        summary: "The issuer identifier must have no query or fragment (RFC 8414 §2), or `iss` comparisons and discovery break.",
        severity: .error,
        triggering: [
            Examples.header
                + "issuer: https://auth.example.com/?tenant=a\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n",
            Examples.header
                + "issuer: https://auth.example.com#main\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n",
        ],
        nonTriggering: [Examples.valid])

    func validate(_ file: LintFile) -> [Diagnostic] {
        // Searched in the text's own bytes: the generic walk of its `utf8` view cost thirty instructions a byte.
        guard var issuer = file.descriptor?.issuer, issuer.withUTF8({ $0.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } }) else {
            return []
        }
        return [diagnostic(file, ["issuer"], "issuer `\(issuer)` has a query or fragment; RFC 8414 §2 forbids both")]
    }
}

/// The engine can only check `iss` against a declared issuer.
struct IssuerForIssParameterRule: LintRule {
    static let description = RuleDescription(
        identifier: "issuer_for_iss_parameter", name: "Issuer for the iss check",
        summary:
            "Unless `security.iss_parameter` is `absent`, the descriptor must declare its `issuer`, so the RFC 9207 mix-up check has something to compare with.",
        severity: .error,
        triggering: [Examples.header + "endpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n"],
        nonTriggering: [
            Examples.valid,
            Examples.header
                + "endpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\nsecurity:\n  iss_parameter: absent\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, descriptor.issuer == nil, descriptor.security.issParameter != .absent else {
            return []
        }
        return [
            diagnostic(
                file, ["security", "iss_parameter"],
                "no `issuer` is declared, so a callback's `iss` cannot be checked; declare the issuer or set `security.iss_parameter: absent`")
        ]
    }
}
