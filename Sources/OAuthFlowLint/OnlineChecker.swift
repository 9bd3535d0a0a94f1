import Foundation
import OAuthFlow

/// `oauthflow lint --online`: compares each descriptor with the server's published metadata.
///
/// Findings use the rule ids of ``rules``; `Docs/lint-rules.md` lists them from there.
package struct OnlineChecker: Sendable {
    /// The online rules: identifier, severity, and what each finds.
    public static let rules: [(identifier: String, severity: String, summary: String)] = [
        ("online_issuer", "error", "The discovery document names another issuer than the descriptor (aliases and multi-tenant templates count)."),
        (
            "online_pkce_s256", "error / info",
            "`code_challenge_methods_supported` lacks S256 (advice when the server does not publish it: no contradiction)."
        ),
        (
            "online_client_auth", "warning / info",
            "A client authentication method the descriptor lists is missing from `token_endpoint_auth_methods_supported`; metadata is often incomplete (DOT omits `none`, which it accepts). Advice (info) instead when `discovery.lacks` acknowledges the gap (`- token_endpoint_auth_methods_supported: [none]`)."
        ),
        (
            "online_endpoint", "error / warning",
            "The document publishes an endpoint every client command refuses (plain http to a host that is not loopback, a host that is no host name: an error); a static endpoint differs from the published one (a warning)."
        ),
        (
            "online_iss_parameter", "info / warning",
            "RFC 9207 support differs from `security.iss_parameter`: advice (info, never a failure, not even under `--strict`) when the server advertises `iss` and the descriptor accepts it `if_present`, or the descriptor requires it and the server's document is silent; a warning when the descriptor ignores it (`absent`) or requires what the server says it does not send (`false`)."
        ),
        (
            "online_scopes", "warning / info",
            "A scope the descriptor asks for (`scopes.default`, `scopes.offline.scopes`) is missing from the server's `scopes_supported`; advice (info) when `discovery.lacks` acknowledges it (`- scopes_supported: [offline_access]`)."
        ),
        (
            "online_grant_types", "warning / info",
            "A grant type in `grant_types` is missing from the server's `grant_types_supported`; advice (info) when `discovery.lacks` acknowledges it."
        ),
        (
            "online_id_token_algs", "error / warning / info",
            "OpenID Connect: none of the algorithms the descriptor accepts for ID tokens (`security.id_token_algs`, by default RS256 and ES256) is in the server's `id_token_signing_alg_values_supported`, so no ID token it signs verifies (an error); an algorithm the descriptor lists itself that the server does not (a warning, or advice when `discovery.lacks` acknowledges it)."
        ),
        (
            "online_pushed", "warning / info",
            "RFC 9126: the server requires pushed authorization requests and the descriptor says `pushed: never` (the engine pushes anyway), or `pushed: always` and neither side names the endpoint (a warning); the server offers them and the descriptor never uses them (info)."
        ),
        (
            "online_dpop", "warning / info",
            "RFC 9449: `security.dpop` is `required` and the server lists no `dpop_signing_alg_values_supported`, or none in common with the descriptor's (a warning); `if_supported` where the server lists none, or `never` where it does (info)."
        ),
        (
            "online_logout", "warning / info",
            "Logout: the descriptor declares a back- or front-channel logout (or its `sid`) that the server's document says it lacks (`*_logout_supported: false` or absent), a `custom` logout URL where the server publishes `end_session_endpoint`, or an `rp_initiated` style with no end-session endpoint on either side (warnings; advice when `discovery.lacks` names `end_session`); the server offers a logout channel the descriptor does not declare (info)."
        ),
        (
            "online_lacks", "warning / info",
            "An entry of `discovery.lacks` the live document contradicts: it names the endpoint, or its list holds the value (a warning: remove the entry); a value acknowledged that the descriptor does not use, so it silences nothing (info)."
        ),
        ("online_unreachable", "warning", "The document could not be fetched, or variables are missing; never a failure."),
    ]

    private let transport: any HTTPTransport

    public init(transport: any HTTPTransport = DefaultHTTPTransport(timeout: 10)) {
        self.transport = transport
    }

    /// Checks one descriptor file.
    ///
    /// - Parameter variables: Values for the descriptor's variables; defaults, then examples, fill the rest.
    public func check(_ file: LintFile, variables: [String: String] = [:]) async -> [Diagnostic] {
        guard let descriptor = file.descriptor, descriptor.asksForDiscovery else { return [] }
        func diagnostic(_ rule: String, _ severity: Severity, _ keyPath: [String], _ message: String) -> Diagnostic {
            Self.diagnostic(in: file, rule, severity, keyPath, message)
        }
        var values = variables
        for (name, variable) in descriptor.variables where values[name] == nil {
            if let sample = variable.default ?? variable.example { values[name] = sample }
        }
        let provider: Provider
        do {
            provider = try descriptor.resolve(values)
        } catch {
            return [diagnostic("online_unreachable", .warning, ["variables"], "skipped: \(error)")]
        }
        let metadata: ServerMetadata
        do {
            guard let url = provider.discoveryURL else {
                return [diagnostic("online_unreachable", .warning, ["discovery"], "skipped: the descriptor does not use discovery")]
            }
            metadata = try await DiscoveryClient(transport: transport).metadata(at: url, issuers: provider.issuers, provider: provider.id)
        } catch let error as DiscoveryError where error.code == .issuerMismatch {
            return [diagnostic("online_issuer", .error, ["issuer"], error.message)]
        } catch {
            return [diagnostic("online_unreachable", .warning, ["discovery"], "cannot check online: \(error)")]
        }
        // The rules the client applies to discovered endpoints, applied here by the same call: a document they refuse
        // fails every command that would use it.
        var refused: [Diagnostic] = []
        do {
            _ = try provider.applying(metadata)
        } catch let error as DiscoveryError {
            refused.append(diagnostic("online_endpoint", .error, ["discovery"], error.message))
        } catch {
            refused.append(diagnostic("online_endpoint", .error, ["discovery"], "\(error)"))
        }
        return refused + Comparison(file: file, descriptor: descriptor, provider: provider, metadata: metadata).findings
    }

    /// A finding of `rule` at the value of `keyPath` in `file`.
    fileprivate static func diagnostic(
        in file: LintFile, _ rule: String, _ severity: Severity, _ keyPath: [String], _ message: String
    ) -> Diagnostic {
        Diagnostic(location: file.document.location(of: keyPath), severity: severity, ruleID: rule, message: message)
    }
}

extension OnlineChecker {
    /// One descriptor, resolved, against the metadata its server publishes: each comparison a step of its own.
    private struct Comparison {
        let file: LintFile
        let descriptor: ProviderDescriptor
        let provider: Provider
        let metadata: ServerMetadata

        /// Every finding, in the order `oauthflow lint --online` reports them.
        var findings: [Diagnostic] {
            endpoints() + pkce() + clientAuthentication() + scopes() + grantTypes() + idTokenAlgorithms() + pushedAndDPoP() + logout()
                + lacks() + issParameter()
        }

        func diagnostic(_ rule: String, _ severity: Severity, _ keyPath: [String], _ message: String) -> Diagnostic {
            OnlineChecker.diagnostic(in: file, rule, severity, keyPath, message)
        }

        /// A value missing from one of the document's lists: a warning that says how to record it, or advice (info) that
        /// names it when `discovery.lacks` records it: one entry there silences one finding.
        func unlisted(_ rule: String, _ keyPath: [String], _ value: String, _ listing: ProviderDescriptor.Discovery.Listing, _ message: String)
            -> Diagnostic
        {
            if descriptor.discovery.acknowledges(value, missingFrom: listing) {
                return diagnostic(rule, .info, keyPath, "acknowledged by `discovery.lacks` (\(listing.rawValue): \(value)): \(message)")
            }
            return diagnostic(
                rule, .warning, keyPath,
                "\(message); if the provider takes it all the same, record that with `- \(listing.rawValue): [\(value)]` under `discovery.lacks`")
        }

        /// `online_endpoint`: each static endpoint against the published one.
        func endpoints() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            let pairs: [(String, URL?, URL?)] = [
                ("authorization", provider.endpoints.authorization, metadata.authorizationEndpoint),
                ("token", provider.endpoints.token, metadata.tokenEndpoint),
                ("userinfo", provider.endpoints.userinfo, metadata.userinfoEndpoint),
                ("jwks", provider.endpoints.jwks, metadata.jwksURI),
                ("revocation", provider.endpoints.revocation, metadata.revocationEndpoint),
                ("introspection", provider.endpoints.introspection, metadata.introspectionEndpoint),
                ("end_session", provider.endpoints.endSession, metadata.endSessionEndpoint),
                ("device_authorization", provider.endpoints.deviceAuthorization, metadata.deviceAuthorizationEndpoint),
            ]
            for (key, mine, theirs) in pairs {
                if let mine, let theirs, mine != theirs {
                    findings.append(
                        diagnostic(
                            "online_endpoint", .warning, ["endpoints", key],
                            "`endpoints.\(key)` is \(mine.absoluteString) but the server publishes \(theirs.absoluteString)"))
                }
            }
            return findings
        }

        /// `online_pkce_s256`: S256 among the server's code challenge methods.
        func pkce() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            // PKCE belongs to the authorization code grant: a descriptor for services alone never sends it.
            if descriptor.security.pkce != .unsupported, descriptor.grantTypes.contains(GrantType.authorizationCode.rawValue) {
                if let methods = metadata.codeChallengeMethodsSupported {
                    if !methods.contains("S256") {
                        findings.append(
                            diagnostic(
                                "online_pkce_s256", .error, ["security", "pkce"],
                                "the server's code_challenge_methods_supported (\(methods.joined(separator: ", "))) lacks S256"))
                    }
                } else {
                    // What the server does not publish is no contradiction: advice.
                    findings.append(
                        diagnostic(
                            "online_pkce_s256", .info, ["security", "pkce"],
                            "the server does not publish code_challenge_methods_supported; PKCE support is unconfirmed"))
                }
            }
            return findings
        }

        /// `online_client_auth`: the client authentication methods against the server's.
        func clientAuthentication() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            // Servers leave methods they accept out of their metadata (DOT omits `none`): a gap there is a warning.
            if let methods = metadata.tokenEndpointAuthMethodsSupported {
                let key = descriptor.clientAuth.methods == nil ? "method" : "methods"
                for method in descriptor.clientAuth.supported.map(\.rawValue) where !methods.contains(method) {
                    findings.append(
                        unlisted(
                            "online_client_auth", ["client_auth", key], method, .tokenEndpointAuthMethods,
                            "client authentication `\(method)` is not in the server's token_endpoint_auth_methods_supported (\(methods.joined(separator: ", "))); the metadata may be incomplete, or the server refuses it"
                        ))
                }
            }
            return findings
        }

        /// `online_scopes`: the scopes the descriptor asks for against the server's.
        func scopes() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            // What the descriptor asks for against what the server publishes; a published list is often incomplete,
            // so a gap is a warning that names both sides.
            if let supported = metadata.scopesSupported {
                let asked = [
                    (["scopes", "default"], descriptor.scopes.default), (["scopes", "offline", "scopes"], descriptor.scopes.offline.scopes),
                ]
                for (keyPath, scopes) in asked {
                    for scope in scopes where !scope.contains("{") && !supported.contains(scope) {
                        findings.append(
                            unlisted(
                                "online_scopes", keyPath, scope, .scopes,
                                "the descriptor asks for the scope `\(scope)`, which the server's scopes_supported (\(supported.joined(separator: ", "))) does not list"
                            ))
                    }
                }
            }
            return findings
        }

        /// `online_grant_types`: the descriptor's grants against the server's.
        func grantTypes() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            if let supported = metadata.grantTypesSupported {
                for grant in descriptor.grantTypes where !supported.contains(grant) {
                    findings.append(
                        unlisted(
                            "online_grant_types", ["grant_types"], grant, .grantTypes,
                            "the descriptor declares the grant `\(grant)`, which the server's grant_types_supported (\(supported.joined(separator: ", "))) does not list"
                        ))
                }
            }
            return findings
        }

        /// `online_iss_parameter`: RFC 9207 `iss` as the descriptor takes it against what the server advertises.
        func issParameter() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            let advertised = metadata.authorizationResponseIssParameterSupported == true
            switch descriptor.security.issParameter {
            case .absent where advertised:
                findings.append(
                    diagnostic(
                        "online_iss_parameter", .warning, ["security", "iss_parameter"],
                        "the server sends `iss` in authorization responses (RFC 9207); set `iss_parameter: required`"))
            case .ifPresent where advertised:
                // Advice: `if_present` already checks every `iss` the server sends.
                findings.append(
                    diagnostic(
                        "online_iss_parameter", .info, ["security", "iss_parameter"],
                        "the server advertises RFC 9207 `iss`; `iss_parameter: required` would refuse callbacks without it"))
            case .required where !advertised:
                // An explicit `false` contradicts the descriptor; a document silent on it is advice.
                let contradicted = metadata.authorizationResponseIssParameterSupported == false
                findings.append(
                    diagnostic(
                        "online_iss_parameter", contradicted ? .warning : .info, ["security", "iss_parameter"],
                        "`iss_parameter: required`, but the server does not advertise authorization_response_iss_parameter_supported"))
            default:
                break
            }
            return findings
        }

        /// `online_logout`: the descriptor's `logout` block against the document's logout metadata.
        func logout() -> [Diagnostic] {
            let declaresLogout = file.document.node(at: ["logout"]) != nil
            let logout = descriptor.logout
            var findings: [Diagnostic] = []
            let declared: [(String, Bool, Bool?)] = [
                ("backchannel_logout_supported", logout.backchannelLogoutSupported, metadata.backchannelLogoutSupported),
                ("backchannel_logout_session_supported", logout.backchannelLogoutSessionSupported, metadata.backchannelLogoutSessionSupported),
                ("frontchannel_logout_supported", logout.frontchannelLogoutSupported, metadata.frontchannelLogoutSupported),
                ("frontchannel_logout_session_supported", logout.frontchannelLogoutSessionSupported, metadata.frontchannelLogoutSessionSupported),
            ]
            for (key, mine, theirs) in declared {
                if mine, theirs != true {
                    findings.append(
                        diagnostic(
                            "online_logout", .warning, ["logout", key],
                            "`logout.\(key)` is true, but the server's document \(theirs == false ? "says false" : "does not publish \(key)")"))
                } else if !mine, theirs == true {
                    findings.append(
                        diagnostic(
                            "online_logout", .info, ["logout"],
                            "the server publishes \(key): true; declare `logout.\(key): true` so that apps know to register for it"))
                }
            }
            if logout.style == .custom, let published = metadata.endSessionEndpoint {
                findings.append(
                    diagnostic(
                        "online_logout", .warning, ["logout", "style"],
                        "`logout.style: custom`, but the server publishes the standard end_session_endpoint \(published.absoluteString)"))
            } else if logout.style == .rpInitiated, descriptor.endpoints.endSession == nil, metadata.endSessionEndpoint == nil,
                declaresLogout
            {
                let message =
                    "the server publishes no end_session_endpoint and the descriptor names none: signing out cannot end the session at the provider"
                if descriptor.discovery.lacks.contains(.endSession) {
                    findings.append(diagnostic("online_logout", .info, ["logout"], "acknowledged by `discovery.lacks` (end_session): " + message))
                } else {
                    findings.append(
                        diagnostic("online_logout", .warning, ["logout"], message + "; if that is so, add `end_session` to `discovery.lacks`"))
                }
            }
            return findings
        }

        /// `online_lacks`: each entry of `discovery.lacks` against the document, which may have changed since it was written.
        func lacks() -> [Diagnostic] {
            let document = file.document
            let discovery = descriptor.discovery
            var findings: [Diagnostic] = []
            // Each finding points at its entry: the endpoint's name, or the value in its list's mapping.
            let entries: [YAMLNode] = document.node(at: ["discovery", "lacks"]).map { Array($0.items) } ?? []
            func entry(_ name: String, _ value: String? = nil) -> [String] {
                for (index, item) in entries.enumerated() {
                    if let value, item.kind == YAMLTree.Kind.mapping, let values = item[name].map({ Array($0.items) }),
                        let position = values.firstIndex(where: { $0.string == value })
                    {
                        return ["discovery", "lacks", String(index), name, String(position)]
                    }
                    if value == nil, item.kind == YAMLTree.Kind.scalar, item.string == name { return ["discovery", "lacks", String(index)] }
                }
                return ["discovery", "lacks"]
            }
            let named: [(ProviderDescriptor.DiscoveryEndpoint, URL?, String)] = [
                (.revocation, metadata.revocationEndpoint, "revocation_endpoint"), (.endSession, metadata.endSessionEndpoint, "end_session_endpoint"),
            ]
            for (endpoint, published, member) in named where discovery.lacks.contains(endpoint) {
                if let published {
                    findings.append(
                        diagnostic(
                            "online_lacks", .warning, entry(endpoint.rawValue),
                            "`discovery.lacks` names `\(endpoint.rawValue)`, but the server now publishes \(member) \(published.absoluteString); remove the entry"
                        ))
                }
            }
            for listing in ProviderDescriptor.Discovery.Listing.allCases {
                let published: [String]? =
                    switch listing {
                    case .tokenEndpointAuthMethods: metadata.tokenEndpointAuthMethodsSupported
                    case .scopes: metadata.scopesSupported
                    case .grantTypes: metadata.grantTypesSupported
                    case .idTokenSigningAlgs: metadata.idTokenSigningAlgValuesSupported
                    }
                let used: [String] =
                    switch listing {
                    case .tokenEndpointAuthMethods: descriptor.clientAuth.supported.map(\.rawValue)
                    case .scopes: descriptor.scopes.default + descriptor.scopes.offline.scopes
                    case .grantTypes: descriptor.grantTypes
                    case .idTokenSigningAlgs: descriptor.security.idTokenAlgs
                    }
                for value in discovery.unlisted[listing] ?? [] {
                    if let published, published.contains(value) {
                        findings.append(
                            diagnostic(
                                "online_lacks", .warning, entry(listing.rawValue, value),
                                "`discovery.lacks` says the server's \(listing.rawValue) leaves out `\(value)`, but it now lists it; remove the entry"
                            ))
                    } else if !used.contains(value) {
                        findings.append(
                            diagnostic(
                                "online_lacks", .info, entry(listing.rawValue, value),
                                "`discovery.lacks` acknowledges `\(value)` missing from \(listing.rawValue), which the descriptor does not use: the entry silences nothing"
                            ))
                    }
                }
            }
            return findings
        }

        /// `online_id_token_algs`: the ID token algorithms the descriptor accepts against those the server signs with.
        ///
        /// The defaults are no claim of the descriptor's: only a list it writes itself is compared name by name.
        func idTokenAlgorithms() -> [Diagnostic] {
            let listed = file.document.node(at: ["security", "id_token_algs"]) != nil
            guard descriptor.protocol == .oidc, let published = metadata.idTokenSigningAlgValuesSupported, !published.isEmpty else { return [] }
            let accepted = descriptor.security.idTokenAlgs
            let keyPath = listed ? ["security", "id_token_algs"] : ["protocol"]
            guard accepted.contains(where: published.contains) else {
                return [
                    diagnostic(
                        "online_id_token_algs", .error, keyPath,
                        "the server signs ID tokens with \(published.joined(separator: ", ")), none of which `security.id_token_algs` (\(accepted.joined(separator: ", "))) accepts: no sign-in can verify its ID token"
                    )
                ]
            }
            guard listed else { return [] }
            return accepted.filter { !published.contains($0) }.map { algorithm in
                unlisted(
                    "online_id_token_algs", keyPath, algorithm, .idTokenSigningAlgs,
                    "`security.id_token_algs` lists \(algorithm), which the server's id_token_signing_alg_values_supported (\(published.joined(separator: ", "))) does not"
                )
            }
        }

        /// `online_pushed` and `online_dpop`: the descriptor's RFC 9126 and RFC 9449 settings against the document.
        func pushedAndDPoP() -> [Diagnostic] {
            var findings: [Diagnostic] = []
            let endpoint = descriptor.endpoints.pushedAuthorization != nil || metadata.pushedAuthorizationRequestEndpoint != nil
            switch descriptor.authorization.pushed {
            case .never where metadata.requirePushedAuthorizationRequests == true:
                findings.append(
                    diagnostic(
                        "online_pushed", .warning, ["authorization", "pushed"],
                        "the server requires pushed authorization requests (require_pushed_authorization_requests); OAuthFlow pushes them whatever `pushed: never` says"
                    ))
            case .never where metadata.pushedAuthorizationRequestEndpoint != nil:
                findings.append(
                    diagnostic(
                        "online_pushed", .info, ["authorization", "pushed"],
                        "the server takes pushed authorization requests (RFC 9126); `pushed: if_supported` would keep the parameters out of the browser"
                    ))
            case .always where !endpoint:
                findings.append(
                    diagnostic(
                        "online_pushed", .warning, ["authorization", "pushed"],
                        "`pushed: always`, but the server names no pushed_authorization_request_endpoint and neither does the descriptor"))
            default:
                break
            }
            let offered = metadata.dpopSigningAlgValuesSupported ?? []
            let allowed = descriptor.security.dpopSigningAlgs
            switch descriptor.security.dpop {
            case .required where offered.isEmpty:
                findings.append(
                    diagnostic(
                        "online_dpop", .warning, ["security", "dpop"],
                        "`dpop: required`, but the server does not list dpop_signing_alg_values_supported: it may not bind tokens (see `dpop_bearer_answer`)"
                    ))
            case .required, .ifSupported:
                if !offered.isEmpty, !allowed.contains(where: offered.contains) {
                    findings.append(
                        diagnostic(
                            "online_dpop", descriptor.security.dpop == .required ? .warning : .info,
                            ["security", "dpop_signing_alg_values_supported"],
                            "the server signs DPoP proofs with \(offered.joined(separator: ", ")), none of which the descriptor allows (\(allowed.joined(separator: ", ")))"
                        ))
                } else if offered.isEmpty {
                    findings.append(
                        diagnostic(
                            "online_dpop", .info, ["security", "dpop"],
                            "the server lists no dpop_signing_alg_values_supported: with `if_supported`, tokens stay Bearer tokens"))
                }
            case .never where !offered.isEmpty:
                findings.append(
                    diagnostic(
                        "online_dpop", .info, ["security", "dpop"],
                        "the server supports DPoP (\(offered.joined(separator: ", "))); `dpop: if_supported` would bind tokens to a key (git and kubectl then cannot use them)"
                    ))
            default:
                break
            }
            return findings
        }
    }
}
