#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Providers {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one provider with its variables filled in: endpoints, scopes, checks and resources.")

        @Argument(help: "The provider id.")
        var name: String

        @OptionGroup var variableOptions: VariableOptions
        @OptionGroup var registryOptions: RegistryOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        struct Summary: Encodable {
            let id: String
            let displayName: String
            let `protocol`: String
            let variables: [String: String]
            let issuer: String?
            let discovery: String?
            let endpoints: [String: String]
            let scopes: [String]
            let offlineScopes: [String]
            let offlineParams: [String: String]
            let extraParams: [String: String]
            let tokenBodyEncoding: String
            /// How the token endpoint's answer is read: `json` (RFC 6749 §5.1), `form` or `auto`.
            let tokenResponseFormat: String
            let clientAuth: String
            let grantTypes: [String]
            /// The `aud` of client assertions, when the provider takes any.
            let assertionAudience: String?
            /// How client-credentials requests name their API, when the provider takes the grant.
            let serviceTarget: String?
            let pkce: String
            let state: Bool
            let nonce: Bool
            let issParameter: String
            /// `authorization.pushed` (RFC 9126).
            let pushed: String
            /// `security.dpop` (RFC 9449), and the key algorithms in order.
            let dpop: String
            let dpopAlgorithms: [String]
            /// `security.profile` (FAPI 2.0), when the provider is held to one.
            let securityProfile: String?
            let redirect: String
            /// `logout`: the end-session style and parameter, and the logout channels the provider declares.
            let logout: Logout
            let resources: [Resource]
            /// The provider's row of the catalog (`providers list`, Docs/providers.md), from the same descriptor.
            let catalog: ProviderRegistry.CatalogEntry

            struct Logout: Encodable {
                /// Where the end-session endpoint comes from: `descriptor`, `discovery` (when the document names one), or `none`.
                let endSession: String
                let style: String
                let redirectParameter: String
                let backChannel: Bool
                let backChannelSessions: Bool
                let frontChannel: Bool
                let frontChannelSessions: Bool

                enum CodingKeys: String, CodingKey {
                    case endSession = "end_session", style, redirectParameter = "redirect_parameter", backChannel = "backchannel",
                        backChannelSessions = "backchannel_sessions"
                    case frontChannel = "frontchannel", frontChannelSessions = "frontchannel_sessions"
                }

                /// One line: how the session ends at the provider, and what it sends.
                var text: String {
                    let how = style == "custom" ? "the provider's own URL (return address in `\(redirectParameter)`)" : "RP-Initiated Logout"
                    var parts: [String] =
                        switch endSession {
                        case "descriptor": [how]
                        case "discovery": [how + " if the discovery document names an end_session_endpoint"]
                        default: ["no end-session endpoint (sign-out ends the session here only)"]
                        }
                    if backChannel { parts.append("back-channel" + (backChannelSessions ? " (sid)" : "")) }
                    if frontChannel { parts.append("front-channel" + (frontChannelSessions ? " (sid)" : "")) }
                    return parts.joined(separator: ", ")
                }
            }

            enum CodingKeys: String, CodingKey {
                case id, displayName = "display_name", `protocol`, variables, issuer, discovery, endpoints, scopes
                case offlineScopes = "offline_scopes", offlineParams = "offline_params", extraParams = "extra_params"
                case tokenBodyEncoding = "token_body_encoding", tokenResponseFormat = "token_response_format", clientAuth = "client_auth"
                case pkce, state, nonce
                case grantTypes = "grant_types", assertionAudience = "assertion_audience", serviceTarget = "service_target"
                case issParameter = "iss_parameter", redirect, resources, pushed, dpop, dpopAlgorithms = "dpop_algorithms", logout, catalog
                case securityProfile = "security_profile"
            }
        }

        func run() async throws {
            try await Output.running {
                let oauth = registryOptions.oauth()
                let provider = try oauth.resolve(name, variables: variableOptions.values)
                let descriptor = try oauth.descriptor(name)
                let summary = Self.summary(of: provider, descriptor: descriptor)
                if json {
                    Output.stdoutExact(try Output.json(summary))
                    return
                }
                let lines = Self.described(provider, summary) + Self.policyLines(provider, summary)
                // Each line holds descriptor values: escaped whole, so none can start a line of its own.
                Output.stdout(lines.map(TerminalText.escaped).joined(separator: "\n") + "\n")
            }
        }

        /// What `--json` prints, and the text is made from: the provider as resolved, and its catalog entry.
        static func summary(of provider: Provider, descriptor: ProviderDescriptor) -> Summary {
            let catalog = descriptor.catalogEntry
            // A document recorded as naming no end-session endpoint (`discovery.lacks`) gives none to read.
            let endSession =
                provider.endSessionSource == .discovery && provider.discovery?.lacks.contains(.endSession) == true
                ? "none" : provider.endSessionSource.rawValue
            let policy = provider.policy
            // FAPI 2.0 pushes every request and requires `iss` whatever the descriptor leaves to the server.
            let fapi2 = policy.securityProfile?.includesFAPI2Security == true
            let set = provider.endpoints.all
            let endpoints = Dictionary(uniqueKeysWithValues: set.map { ($0.key, $0.url.absoluteString) })
            return Summary(
                id: provider.id, displayName: provider.displayName, protocol: provider.protocol.rawValue, variables: provider.variables,
                issuer: provider.issuer?.absoluteString, discovery: provider.discoveryURL?.absoluteString,
                endpoints: endpoints, scopes: policy.scopes.defaults, offlineScopes: policy.scopes.offlineScopes,
                offlineParams: policy.scopes.offlineParameters, extraParams: policy.authorizationParameters,
                tokenBodyEncoding: policy.tokenRequest.encoding.rawValue, tokenResponseFormat: policy.tokenResponseFormat.rawValue,
                clientAuth: policy.clientAuthMethods.map(\.rawValue).joined(separator: ", "),
                grantTypes: policy.grantTypes.map(\.rawValue),
                assertionAudience: policy.clientAuthMethods.contains(where: \.usesAssertion) ? policy.clientAssertion.audience.rawValue : nil,
                serviceTarget: policy.grantTypes.contains(.clientCredentials) ? policy.serviceTokens.target.rawValue : nil,
                pkce: policy.pkce.rawValue, state: true, nonce: policy.nonce,
                issParameter: fapi2 ? provider.issuerParameterRule.rawValue : policy.issParameter.rawValue,
                pushed: fapi2 ? ProviderDescriptor.Pushed.always.rawValue : policy.pushedAuthorization.rawValue,
                dpop: policy.dpop.use.rawValue,
                dpopAlgorithms: policy.dpop.algorithms.map(\.rawValue), securityProfile: policy.securityProfile?.rawValue,
                redirect: policy.webRedirectOnly
                    ? "https web redirect URIs only (no loopback): sign in through a web app's routes" : provider.loopback.display,
                logout: .init(
                    endSession: endSession,
                    style: policy.logout.style.rawValue, redirectParameter: policy.logout.redirectParameter,
                    backChannel: policy.logout.backChannel.supported, backChannelSessions: policy.logout.backChannel.sessionSupported,
                    frontChannel: policy.logout.frontChannel.supported, frontChannelSessions: policy.logout.frontChannel.sessionSupported),
                resources: provider.resources.entries, catalog: catalog)
        }

        /// What `pushed: if_supported` comes to for this provider, which is read without discovery: pushed when the
        /// descriptor names the endpoint, decided by the discovery document when there is one, else never.
        static func pushedMeaning(_ pushed: String, provider: Provider) -> String {
            guard pushed == ProviderDescriptor.Pushed.ifSupported.rawValue else { return "" }
            if provider.endpoints.pushedAuthorization != nil { return " (pushed: the descriptor names the endpoint)" }
            if provider.discovery != nil {
                return
                    " (unknown until discovery: pushed when the discovery document names pushed_authorization_request_endpoint, read at sign-in)"
            }
            return " (not pushed: no endpoint, and no discovery to find one)"
        }

        /// The text's first lines: the provider, its variables, endpoints, grants, scopes and parameters.
        static func described(_ provider: Provider, _ summary: Summary) -> [String] {
            let policy = provider.policy
            let fapi2 = policy.securityProfile?.includesFAPI2Security == true
            let set = provider.endpoints.all
            var lines = ["\(provider.displayName) (\(provider.id), \(provider.protocol.rawValue))"]
            if let profile = policy.securityProfile, fapi2 {
                lines.append(
                    "  security profile: \(profile.title) (\(profile.rawValue)): endpoints only from the issuer's metadata, every request pushed, PKCE S256, iss required, client authentication \(summary.clientAuth), sender-constrained tokens, \(ProviderDescriptor.SecurityProfile.fapi2Algorithms.map(\.rawValue).joined(separator: ", ")) only"
                )
            }
            for (name, value) in provider.variables.sorted(by: { $0.key < $1.key }) { lines.append("  var \(name) = \(value)") }
            if let issuer = summary.issuer { lines.append("  issuer: \(issuer)") }
            if let discovery = summary.discovery { lines.append("  discovery: \(discovery)") }
            for (key, url) in set { lines.append("  \(key): \(url.absoluteString)") }
            if provider.usesDiscovery, set.count < Provider.Endpoints.keys.count {
                lines.append("  other endpoints: from the discovery document, when first needed")
            }
            lines.append("  grants: \(policy.grantTypes.map(\.shortName).joined(separator: ", "))")
            switch (policy.scopes.parameter, policy.scopes.defaults.isEmpty) {
            case (.never, _): lines.append("  scopes: none sent (the provider fixes them at registration)")
            case (.always, true): lines.append("  scopes: an empty `scope` parameter")
            case (_, true): lines.append("  scopes: none asked for (no `scope` parameter)")
            default: lines.append("  scopes: \(policy.scopes.joined(policy.scopes.defaults))")
            }
            if !policy.scopes.offlineScopes.isEmpty || !policy.scopes.offlineParameters.isEmpty {
                let params = policy.scopes.offlineParameters.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }
                lines.append("  offline: " + (policy.scopes.offlineScopes + params).joined(separator: " "))
            }
            for (key, value) in policy.authorizationParameters.sorted(by: { $0.key < $1.key }) { lines.append("  extra param: \(key)=\(value)") }
            return lines
        }

        /// The text's other lines: how tokens are asked for and checked, DPoP, the redirect, logout, the catalog
        /// entry and the resources.
        static func policyLines(_ provider: Provider, _ summary: Summary) -> [String] {
            let policy = provider.policy
            let catalog = summary.catalog
            var lines: [String] = []
            lines.append(
                "  token request: \(summary.tokenBodyEncoding) body, client auth \(summary.clientAuth); answer read as \(summary.tokenResponseFormat)"
            )
            if let request = policy.userinfoRequestSummary { lines.append("  userinfo request: \(request)") }
            if let secret = policy.generatedSecret {
                lines.append(
                    "  client secret: a JWT the engine signs with the client's private key (iss \(secret.issuer), aud \(secret.audience), valid \(Int(secret.lifetime)) s)"
                )
            }
            if policy.responseMode != .query {
                let signed = policy.responseMode.isJWT ? ", signed with \(policy.responseAlgorithms.map(\.rawValue).joined(separator: ", "))" : ""
                lines.append("  response mode: \(policy.responseMode.rawValue)\(signed)")
            }
            if policy.requestObject != .never {
                let algorithms = policy.requestObjectAlgorithms.map(\.rawValue).joined(separator: ", ")
                lines.append("  request objects (RFC 9101): \(policy.requestObject.rawValue), signed with \(algorithms)")
            }
            if let audience = summary.assertionAudience {
                let algorithms = policy.clientAssertion.algorithms.map(\.rawValue).joined(separator: ", ")
                lines.append("  client assertions: aud \(audience == "issuer" ? "the issuer" : "the token endpoint"), signed with \(algorithms)")
            }
            if let target = summary.serviceTarget {
                let how = target == "scope" ? "as scopes API\(policy.serviceTokens.scopeSuffix)" : "with `\(target)`"
                lines.append("  service tokens: APIs named \(how)")
            }
            lines.append(
                "  checks: pkce \(summary.pkce)\(summary.pkce == "unsupported" ? "" : " (S256)"), state \(summary.state ? "on" : "off"), nonce \(summary.nonce ? "on" : "off"), iss \(summary.issParameter)"
            )
            lines.append("  pushed authorization requests: \(summary.pushed)\(Self.pushedMeaning(summary.pushed, provider: provider))")
            if summary.dpop != "never" {
                lines.append(
                    "  DPoP: \(summary.dpop), keys \(summary.dpopAlgorithms.joined(separator: ", ")), a Bearer answer: \(policy.dpop.bearerAnswer.rawValue); git and kubectl cannot use bound tokens"
                )
            } else {
                lines.append("  DPoP: never (Bearer tokens)")
            }
            if policy.certificateBoundTokens {
                lines.append(
                    "  certificate-bound tokens (RFC 8705): token requests present the client certificate, and the tokens go only with it")
            }
            lines.append("  redirect: \(summary.redirect)")
            lines.append("  logout: \(summary.logout.text)")
            let refresh = catalog.refreshCondition.map { "\(catalog.refresh) (\($0))" } ?? catalog.refresh
            let revocation = catalog.revocationCondition.map { "\(catalog.revocation) (\($0))" } ?? catalog.revocation
            let logout = catalog.logoutCondition.map { "\(catalog.logout) (\($0))" } ?? catalog.logout
            lines.append(
                "  catalog: pkce \(catalog.pkce), refresh \(refresh), device flow \(catalog.deviceFlow ? "yes" : "no"), revocation \(revocation), logout \(logout), profile \(catalog.profileFields.joined(separator: ", "))"
            )
            for resource in provider.resources.entries {
                lines.append("  resource: \(resource.title) [\(resource.scope)] \(resource.url.absoluteString)")
            }
            return lines
        }
    }
}
#endif
