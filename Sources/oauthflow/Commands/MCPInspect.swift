#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowMCPAuth

extension OAuthFlowCommand.MCP {
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Show what discovery finds for an MCP server and what a sign-in would do, without signing in.",
            discussion: """
                Sends the server one unauthenticated request for its challenge, reads its protected-resource metadata \
                and its authorization server's metadata, and says which client route a sign-in would take, the scopes, \
                pushed authorization requests and DPoP. Nothing is registered. Exit codes: 0 shown; 1 discovery failed.
                """)

        @OptionGroup var options: MCPOptions

        @OptionGroup var grant: MCPGrantOptions

        @Flag(help: "Print the findings as JSON on stdout.")
        var json = false

        func run() async throws {
            let authorization = try await grant.authorization(options)
            let server = options.server
            let found = try await Output.running { try await authorization.inspect(server) }
            if json {
                Output.stdoutExact(try Output.json(found))
            } else {
                Output.stdout(Self.text(found))
            }
        }

        /// The findings for a person, one line each, then what a sign-in would do.
        static func text(_ found: MCPServerInspection) -> String {
            var lines: [(String, String)] = [("MCP server", found.server.absoluteString)]
            if let challenge = found.challenge {
                var said = "401 " + (challenge.error ?? "(no error)")
                if let metadata = challenge.resourceMetadata { said += ", resource_metadata \(metadata.absoluteString)" }
                if !challenge.scopes.isEmpty { said += ", scope \(challenge.scopes.joined(separator: " "))" }
                lines.append(("challenge", said))
            } else {
                lines.append(("challenge", "none (the well-known locations were read)"))
            }
            lines.append(
                (
                    "resource metadata",
                    found.resourceMetadata.absoluteString
                        + (found.legacyDiscovery ? " (none there: the server's origin is its authorization server, MCP 2025-03-26)" : "")
                ))
            lines.append(("resource", found.resource))
            lines.append(("authorization servers", found.authorizationServers.map(\.absoluteString).joined(separator: ", ")))
            lines.append(("issuer", "\(found.issuer.absoluteString) (metadata at \(found.authorizationServerMetadata.absoluteString))"))
            lines.append(("provider", found.pinnedProvider.map { "pinned: \($0)" } ?? "drafted from the metadata, as `providers add` drafts one"))
            let registration = found.registration
            let client: String
            switch registration.route {
            case "host_client": client = "given (--client-id): \(registration.clientID ?? "")"
            case "registered_before": client = "registered before: \(registration.clientID ?? "")"
            case "client_id_metadata_document": client = "client ID metadata document \(registration.clientID ?? "")"
            case "dynamic_registration": client = "Dynamic Client Registration (RFC 7591) at \(registration.endpoint?.absoluteString ?? "")"
            default: client = "none: \(registration.problem ?? "no route")"
            }
            lines.append(("client", client))
            lines.append(("redirect URI", found.redirectURI.absoluteString))
            lines.append(("scopes", found.scopes.isEmpty ? "none" : found.scopes.joined(separator: " ")))
            let pushed = found.pushedAuthorizationRequests ? (found.requiresPushedAuthorizationRequests ? "yes (required)" : "yes") : "no"
            lines.append(("pushed (RFC 9126)", pushed))
            let dpop =
                found.dpopAlgorithms.isEmpty
                ? "not offered"
                : "offered (\(found.dpopAlgorithms.joined(separator: " "))): a Swift MCP client whose transport carries proofs binds its "
                    + "session; oauthflow mcp signs in for Bearer tokens"
            lines.append(("DPoP", dpop))
            lines.append(("session", "\(found.signedIn ? "stored" : "none") (\(found.sessionKey.providerID), \(found.sessionKey.account))"))
            lines.append(("grant", grantLine(found)))
            // MCP authorization 2026-07-28: what a sign-in sends and checks.
            lines.append(("resource sent", "\(found.resourceSent) (authorization and token requests, and every refresh)"))
            lines.append(
                (
                    "offline_access",
                    found.offlineAccess
                        ? "asked for (the authorization server lists it)" : "not asked for (not in the authorization server's scopes_supported)"
                ))
            lines.append(("iss (RFC 9207)", found.issParameter == "required" ? "required, compared exactly" : "compared exactly when present"))
            if found.defaultEndpoints { lines.append(("endpoints", "no metadata: /authorize, /token and /register at the issuer (MCP 2025-03-26)")) }
            let width = lines.map(\.0.count).max() ?? 0
            // Each value on its own line, whatever a server put in it (a line break in an algorithm's name, say).
            var text =
                lines.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + Output.line($0.1) }.joined(separator: "\n") + "\n"
            let would: String
            if let problem = found.grantProblem {
                would = "a sign-in would fail: \(problem)"
            } else if found.grant != "authorization_code" {
                would = assertionWould(found)
            } else if found.signedIn {
                would = "`oauthflow mcp token` would use the stored session, refreshed when it is about to expire."
            } else if registration.route == "none" {
                would = "a sign-in would fail: no client."
            } else {
                let registering = registration.route == "dynamic_registration" ? "register a native public client, then " : ""
                would = "`oauthflow mcp login` would \(registering)sign in through the browser with PKCE S256 and resource \(found.resource)."
            }
            text += "\n" + would + "\n"
            return text
        }

        /// How the tokens would be had, in words: a user's sign-in, an enterprise identity provider, or a workload's JWT.
        static func grantLine(_ found: MCPServerInspection) -> String {
            switch found.grant {
            case "enterprise_identity_provider":
                return
                    "through the enterprise identity provider \(found.identityProvider ?? ""): an identity assertion grant (ID-JAG), presented as a JWT bearer grant"
            case "workload_assertion":
                return "the workload's JWT from \(found.assertionSource ?? "its source"), presented as a JWT bearer grant (no user)"
            case "client_credentials": return "the client itself, with the client credentials grant (no user)"
            default: return "a user signs in at the authorization server (authorization code, PKCE S256)"
            }
        }

        /// What `login` would do when an assertion is presented.
        static func assertionWould(_ found: MCPServerInspection) -> String {
            let issuer = found.issuer.absoluteString
            if found.grant == "client_credentials" {
                return
                    "`oauthflow mcp login` would ask \(issuer) for a token for the client itself (client credentials) for the resource \(found.resourceSent), with no user and no browser."
            }
            if found.grant == "workload_assertion" {
                return
                    "`oauthflow mcp login` would present the workload's JWT to \(issuer) for the resource \(found.resource), with no user and no browser."
            }
            let idp = found.identityProvider ?? "the identity provider"
            return
                "`oauthflow mcp login --via \(idp)` would use the session at \(idp) (signing in there through the browser first if there is none), exchange its ID token there for an ID-JAG for \(issuer) and the resource \(found.resource), and present it to \(issuer); no browser visits \(issuer)."
        }
    }
}
#endif
