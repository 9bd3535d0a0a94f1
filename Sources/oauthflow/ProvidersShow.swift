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
            let clientAuth: String
            let pkce: String
            let state: Bool
            let nonce: Bool
            let issParameter: String
            let redirect: String
            let resources: [Resource]

            enum CodingKeys: String, CodingKey {
                case id, displayName = "display_name", `protocol`, variables, issuer, discovery, endpoints, scopes
                case offlineScopes = "offline_scopes", offlineParams = "offline_params", extraParams = "extra_params"
                case tokenBodyEncoding = "token_body_encoding", clientAuth = "client_auth", pkce, state, nonce
                case issParameter = "iss_parameter", redirect, resources
            }
        }

        func run() async throws {
            let provider: Provider
            do {
                provider = try registryOptions.descriptor(named: name).resolve(try variableOptions.parsed())
            } catch {
                throw Output.fail(error)
            }
            let d = provider.descriptor
            let e = provider.endpoints
            var endpoints: [String: String] = [:]
            let pairs: [(String, URL?)] = [
                ("authorization", e.authorization), ("token", e.token), ("userinfo", e.userinfo), ("revocation", e.revocation),
                ("introspection", e.introspection), ("end_session", e.endSession),
                ("device_authorization", e.deviceAuthorization), ("jwks", e.jwks),
            ]
            for (key, url) in pairs { if let url { endpoints[key] = url.absoluteString } }
            let loopback = d.redirect.loopback
            let port = switch loopback.port {
            case .ephemeral: "<ephemeral port>"
            case let .fixed(number): "\(number)"
            }
            let summary = Summary(
                id: d.id, displayName: d.displayName, protocol: d.protocol.rawValue, variables: provider.variables,
                issuer: provider.issuer?.absoluteString, discovery: provider.discoveryURL?.absoluteString,
                endpoints: endpoints, scopes: d.scopes.default, offlineScopes: d.scopes.offline.scopes,
                offlineParams: d.scopes.offline.params, extraParams: d.authorization.extraParams,
                tokenBodyEncoding: d.tokenRequest.bodyEncoding.rawValue, clientAuth: d.clientAuth.supported.map(\.rawValue).joined(separator: ", "),
                pkce: d.security.pkce.rawValue, state: d.security.state, nonce: d.security.nonce ?? false,
                issParameter: d.security.issParameter.rawValue,
                redirect: "http://\(loopback.host):\(port)\(loopback.path)", resources: provider.resources.entries)
            if json {
                Output.stdoutExact(try Output.json(summary))
                return
            }
            var lines = ["\(d.displayName) (\(d.id), \(d.protocol.rawValue))"]
            for (name, value) in provider.variables.sorted(by: { $0.key < $1.key }) { lines.append("  var \(name) = \(value)") }
            if let issuer = summary.issuer { lines.append("  issuer: \(issuer)") }
            if let discovery = summary.discovery { lines.append("  discovery: \(discovery)") }
            for (key, _) in pairs { if let url = endpoints[key] { lines.append("  \(key): \(url)") } }
            if provider.usesDiscovery, pairs.contains(where: { endpoints[$0.0] == nil }) {
                lines.append("  other endpoints: from the discovery document, when first needed")
            }
            lines.append("  grants: \(d.grantTypes.map { $0 == ProviderDescriptor.deviceCodeGrant ? "device_code" : $0 }.joined(separator: ", "))")
            lines.append("  scopes: \(d.scopes.default.joined(separator: d.scopes.separator))")
            if !d.scopes.offline.scopes.isEmpty || !d.scopes.offline.params.isEmpty {
                let params = d.scopes.offline.params.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }
                lines.append("  offline: " + (d.scopes.offline.scopes + params).joined(separator: " "))
            }
            for (key, value) in d.authorization.extraParams.sorted(by: { $0.key < $1.key }) { lines.append("  extra param: \(key)=\(value)") }
            lines.append("  token request: \(summary.tokenBodyEncoding) body, client auth \(summary.clientAuth)")
            lines.append("  checks: pkce \(summary.pkce) (S256), state \(summary.state ? "on" : "off"), nonce \(summary.nonce ? "on" : "off"), iss \(summary.issParameter)")
            lines.append("  redirect: \(summary.redirect)")
            for resource in provider.resources.entries {
                lines.append("  resource: \(resource.title) [\(resource.scope)] \(resource.url.absoluteString)")
            }
            // Each line holds descriptor values: escaped whole, so none can start a line of its own.
            Output.stdout(lines.map(TerminalText.escaped).joined(separator: "\n") + "\n")
        }
    }
}
