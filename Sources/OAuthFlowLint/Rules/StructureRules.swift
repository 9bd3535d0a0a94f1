import Foundation
import OAuthFlow

/// Shared body of the rules that report ``DescriptorProblem``s found while reading a file.
protocol ProblemRule: LintRule {
    static var kind: DescriptorProblem.Kind { get }
}

extension ProblemRule {
    func validate(_ file: LintFile) -> [Diagnostic] {
        file.document.problems.filter { $0.kind == Self.kind }.map {
            Diagnostic(
                location: $0.location, severity: Self.description.severity,
                ruleID: Self.description.identifier, message: $0.message)
        }
    }
}

/// The file must be readable YAML.
struct MalformedYAMLRule: ProblemRule {
    static let kind = DescriptorProblem.Kind.malformedYAML
    static let description = RuleDescription(
        identifier: "malformed_yaml", name: "Malformed YAML",
        summary:
            "The file must be one readable YAML document: UTF-8 text, no syntax errors or duplicate keys, not empty, not oversized, not nested absurdly deep.",
        severity: .error,
        triggering: [
            Examples.header + "endpoints: [unclosed\n",
            "",
            Examples.valid + "id: again\n",
        ],
        nonTriggering: [Examples.valid])
}

/// Every key must be one the format defines.
struct UnknownKeyRule: ProblemRule {
    static let kind = DescriptorProblem.Kind.unknownKey
    static let description = RuleDescription(
        identifier: "unknown_key", name: "Unknown key",
        summary: "Every key must be one the descriptor format defines; a misspelt key would otherwise be ignored silently.",
        severity: .error,
        triggering: [
            Examples.valid + "scope:\n  default: [email]\n",
            Examples.valid + "security:\n  pkce_required: true\n",
        ],
        nonTriggering: [Examples.valid + "scopes:\n  default: [email]\n"])
}

/// Every value must have the type the format defines.
struct WrongTypeRule: ProblemRule {
    static let kind = DescriptorProblem.Kind.wrongType
    static let description = RuleDescription(
        identifier: "wrong_type", name: "Wrong type",
        summary: "Every value must have the type and one of the values the format defines for its key.",
        severity: .error,
        triggering: [
            Examples.valid + "scopes:\n  default: email\n",
            Examples.valid + "security:\n  pkce: always\n",
            Examples.valid + "redirect:\n  loopback:\n    port: 99999\n",
        ],
        nonTriggering: [Examples.valid + "redirect:\n  loopback:\n    port: 8765\n"])
}

/// Required keys must be present.
struct MissingRequiredFieldRule: ProblemRule {
    static let kind = DescriptorProblem.Kind.missingField
    static let description = RuleDescription(
        identifier: "missing_required_field", name: "Missing required field",
        summary: "`schema_version`, `id`, `display_name` and `protocol` are required, as are the fields each variable and resource needs.",
        severity: .error,
        triggering: [
            "schema_version: 1\nid: example\nprotocol: oauth2\n",
            Examples.valid + "resources:\n  - scope: email\n    title: Mail\n",
        ],
        nonTriggering: [Examples.valid])
}

/// The id must equal the file name.
struct IDMatchesFileNameRule: LintRule {
    static let description = RuleDescription(
        identifier: "id_matches_file_name", name: "Id matches file name",
        summary: "A descriptor's `id` must equal its file name without `.yaml`, so that the file for a provider is always easy to find.",
        severity: .error,
        triggering: [Examples.valid(id: "other")],
        nonTriggering: [Examples.valid])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let id = file.descriptor?.id, id != file.stem else { return [] }
        return [diagnostic(file, ["id"], "id `\(id)` does not match the file name `\(file.stem)`; rename one of them")]
    }
}

/// No two descriptors may share an id.
struct DuplicateIDRule: CollectionLintRule {
    static let description = RuleDescription(
        identifier: "duplicate_id", name: "Duplicate id",
        summary: "No two descriptors linted together may declare the same `id`; the registry could not tell them apart.",
        severity: .error,
        triggering: [Examples.valid + "---\n" + Examples.valid],
        nonTriggering: [Examples.valid + "---\n" + Examples.valid(id: "other")])

    func entry(for file: LintFile) -> CollectionEntry? {
        guard let id = file.descriptor?.id else { return nil }
        return CollectionEntry(key: id, location: file.document.location(of: ["id"]))
    }

    func validate(_ entry: CollectionEntry, earlier: [String: CollectionEntry]) -> [Diagnostic] {
        guard let first = earlier[entry.key] else { return [] }
        return [
            Diagnostic(
                location: entry.location, severity: Self.description.severity, ruleID: Self.description.identifier,
                message: "id `\(entry.key)` is already declared in \(first.location)")
        ]
    }
}

/// There must be a way to find the authorization and token endpoints.
struct EndpointsOrDiscoveryRule: LintRule {
    static let description = RuleDescription(
        identifier: "endpoints_or_discovery", name: "Endpoints or discovery",
        summary:
            "Without discovery, the authorization and token endpoints must be given; an issuer alone names none, so an issuer-only descriptor needs `discovery`. A descriptor for an API only (no `endpoints.authorization`, and `endpoints.jwks` or `endpoints.introspection`), or for a transmitter of security events only (`security_events`, no authorization or token endpoint), needs neither.",
        severity: .error,
        triggering: [
            Examples.header + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize\n",
            Examples.header + "issuer: https://auth.example.com\n",
        ],
        nonTriggering: [
            Examples.valid,
            Examples.header + "issuer: https://auth.example.com\ndiscovery:\n  mode: oidc\n",
            Examples.header + "issuer: https://auth.example.com\nendpoints:\n  jwks: https://auth.example.com/jwks\naccess_tokens:\n  format: jwt\n",
            Examples.header + "issuer: https://ssf.example.com\nsecurity_events:\n  format: ssf\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        // No token endpoint and no discovery: the resolver's refusal, which names what to give.
        let refused = refusals(file, at: ["endpoints"])
        guard refused.isEmpty else { return refused }
        // The resolver runs a provider without an authorization endpoint (it may only issue service tokens); lint
        // asks for one all the same, as signing in needs it.
        guard let descriptor = file.descriptor, !descriptor.asksForDiscovery, !descriptor.isForAPIsOnly,
            !descriptor.isForSecurityEventsOnly, descriptor.endpoints.authorization == nil
        else { return [] }
        var message = "`endpoints.authorization` must be given when discovery is off"
        if descriptor.issuer != nil {
            message += "; `discovery` is missing: set `discovery: {mode: oidc}` (or `rfc8414`) to read the endpoints from the issuer's metadata"
        }
        return [diagnostic(file, ["endpoints"], message)]
    }
}

/// The device grant needs its endpoint, and an endpoint without the grant is probably a forgotten declaration.
struct DeviceGrantRule: LintRule {
    static let description = RuleDescription(
        identifier: "device_grant", name: "Device grant",
        summary:
            "A descriptor that declares the device grant (RFC 8628) needs `endpoints.device_authorization` or discovery; one with the endpoint should declare the grant.",
        severity: .error,
        triggering: [
            Examples.valid + "grant_types: [authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code]\n"
        ],
        nonTriggering: [
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n  device_authorization: https://auth.example.com/device\ngrant_types: [authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code]\n"
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        let hasEndpoint = descriptor.endpoints.deviceAuthorization != nil
        let discovers = descriptor.asksForDiscovery
        if descriptor.supportsDeviceFlow, !hasEndpoint, !discovers {
            return [
                diagnostic(
                    file, ["grant_types"],
                    "the device grant is declared, but there is no `endpoints.device_authorization` and no discovery to find one")
            ]
        }
        if hasEndpoint, !descriptor.supportsDeviceFlow {
            return [
                diagnostic(
                    file, ["endpoints", "device_authorization"],
                    "a device authorization endpoint is given but `grant_types` does not declare `\(ProviderDescriptor.deviceCodeGrant)`; declare it so `oauthflow login --device` can use it",
                    severity: .warning)
            ]
        }
        return []
    }
}

struct ProfileSourcesRule: LintRule {
    static let description = RuleDescription(
        identifier: "profile_sources", name: "Profile sources",
        summary:
            "Every `profile` source must be one the provider can give: no `id_token.` sources for plain OAuth 2.0, `userinfo.` only with a userinfo endpoint or discovery, `extra.` only with an `extra_call` (over https), and an `extra_call` that some source uses, whose `list` comes with `pick_where`. `callback.` sources (unsigned callback parameters) may fill `name` and `picture` only, never `subject`, `email` or `email_verified`.",
        severity: .error,
        triggering: [
            Examples.valid + "profile:\n  subject: [id_token.sub]\n",
            Examples.valid + "profile:\n  email: [extra.email]\n",
            Examples.valid + "profile:\n  subject: [userinfo.id]\n",
            Examples.validOIDC + "profile:\n  email: [callback.user.email]\n",
            Examples.validOIDC + "profile:\n  subject: [\"{callback.user}-{id_token.sub}\"]\n",
            Examples.valid
                + "profile:\n  subject: [extra.uuid]\n  extra_call:\n    url: https://api.example.com/user/emails\n    list: values\n",
            Examples.valid + "profile:\n  picture: [\"userinfo[0\"]\n",
        ],
        nonTriggering: [
            Examples.validOIDC + "profile:\n  subject: [id_token.oid, id_token.sub]\n",
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n  userinfo: https://api.example.com/user\nprofile:\n  subject: [userinfo.id]\n  email: [extra.email]\n  extra_call:\n    url: https://api.example.com/user/emails\n    pick_where: primary\n",
            Examples.valid
                + "profile:\n  subject: [extra.uuid]\n  extra_call:\n    url: https://api.example.com/user/emails\n    list: values\n    pick_where: is_primary\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        // The defaults made once (each `Profile()` allocates their lists).
        let defaults = ProviderDescriptor.Profile.standard
        guard let descriptor = file.descriptor, descriptor.profile != defaults else { return [] }
        let profile = descriptor.profile
        let hasUserinfo = descriptor.endpoints.userinfo != nil || descriptor.asksForDiscovery
        // Fields left at their defaults (standard claims, looked up where they may be) are not the author's claims.
        let lists: [(String, [String], [String])] = [
            ("subject", profile.subject, defaults.subject), ("name", profile.name, defaults.name), ("email", profile.email, defaults.email),
            ("email_verified", profile.emailVerified, defaults.emailVerified), ("picture", profile.picture, defaults.picture),
        ]
        // A source the resolver cannot read is reported with its refusal; the others by the roots they read.
        var diagnostics = lists.flatMap { field, _, _ in refusals(file, at: ["profile", field], items: true) }
        var usesExtra = false
        for (field, sources, standard) in lists where sources != standard {
            for (index, written) in sources.enumerated() {
                let path = ["profile", field, String(index)]
                guard let parsed = try? ProfileSource(parsing: written) else { continue }
                // A path reads one root: no set to build and sort for it.
                let roots: [String]
                if case let .path(path) = parsed { roots = [path.root] } else { roots = parsed.readRoots.sorted() }
                for root in roots {
                    let source = written
                    if root == "callback", ["subject", "email", "email_verified"].contains(field) {
                        diagnostics.append(
                            diagnostic(
                                file, path,
                                "`\(source)`: a callback parameter is not signed, so it may fill `name` or `picture` but never who the user is (`\(field)`)"
                            ))
                    } else if root == "id_token", descriptor.protocol != .oidc {
                        diagnostics.append(
                            diagnostic(file, path, "`\(source)`: a plain OAuth 2.0 provider issues no ID token; use `userinfo.` sources"))
                    } else if root == "userinfo", !hasUserinfo {
                        diagnostics.append(
                            diagnostic(file, path, "`\(source)`: the descriptor has no `endpoints.userinfo` and no discovery to find one"))
                    } else if root == "extra" {
                        usesExtra = true
                        if profile.extraCall == nil {
                            diagnostics.append(diagnostic(file, path, "`\(source)` needs `profile.extra_call`, the call whose answer `extra.` reads"))
                        }
                    }
                }
            }
        }
        diagnostics += refusals(file, at: ["profile", "extra_call", "list"])
        if let call = profile.extraCall {
            if !usesExtra {
                diagnostics.append(
                    diagnostic(
                        file, ["profile", "extra_call"],
                        "`profile.extra_call` is declared but no source reads `extra.`; it would cost a request for nothing",
                        atKey: true, severity: .warning))
            }
            // The braces taken out byte by byte (Foundation's `replacingOccurrences` searched the text twice).
            let bare = String(decoding: call.url.utf8.filter { $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: "}") }, as: UTF8.self)
            if let url = URL(string: bare),
                !TransportPolicy.isSecure(url)
            {
                diagnostics.append(
                    diagnostic(file, ["profile", "extra_call", "url"], "`profile.extra_call.url` sends the access token, so it must use https"))
            }
        }
        return diagnostics
    }
}
