#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

extension OAuthFlowCommand.Providers {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Write a descriptor for a self-hosted provider from its issuer's discovery document.",
            discussion:
                "Reads ISSUER/.well-known/openid-configuration (else RFC 8414 metadata), checks it, and writes ID.yaml to the user providers directory ($XDG_CONFIG_HOME/oauthflow/providers) only when it lints clean under --strict, then says what signing in with it needs."
        )

        @Argument(help: "The issuer identifier, such as https://sso.example.com/realms/ops.")
        var issuer: String

        @Option(help: "The provider id (default: made of the issuer's host and path).")
        var id: String?

        @Option(help: "The directory to write ID.yaml to (default: the user providers directory).")
        var output: String?

        @Option(
            help:
                "The loopback port of the redirect URI, to register at the server (default 8765), or `ephemeral` for any port, for a server that takes any loopback port (RFC 8252 §7.3)."
        )
        var port: String?

        @Flag(
            name: .customLong("public-client"),
            help:
                "The server takes public clients (no secret) although its metadata lists no `none`: list `none` and record the gap in `discovery.lacks`."
        )
        var publicClient = false

        @Flag(
            name: .customLong("offline-access"),
            help:
                "The server grants refresh tokens for `offline_access` although its scopes_supported does not list it: ask for it and record the gap in `discovery.lacks`."
        )
        var offlineAccess = false

        @Flag(help: "Replace a descriptor file that is already there.")
        var force = false

        func validate() throws {
            if let id, !DescriptorDraft.isValidID(id) {
                throw ValidationError("--id takes lowercase letters, digits, `-` and `_`, starting with a letter or digit")
            }
            if let port, port != "ephemeral", !(Int(port).map { (1...65_535).contains($0) } ?? false) {
                throw ValidationError("--port takes a port from 1 to 65535, or `ephemeral`")
            }
        }

        /// What the flags tell the draft beyond the metadata.
        var options: DescriptorDraft.Options {
            var assuming: Set<DescriptorDraft.Assumption> = []
            if publicClient { assuming.insert(.publicClients) }
            if offlineAccess { assuming.insert(.offlineAccess) }
            let loopbackPort = port == "ephemeral" ? nil : port.flatMap { Int($0) } ?? DescriptorDraft.defaultLoopbackPort
            return DescriptorDraft.Options(loopbackPort: loopbackPort, assuming: assuming)
        }

        func run() async throws {
            try await Output.running {
                let oauth = OAuth(.commandLine(environment: CommandEnvironment.variables, transport: DefaultHTTPTransport(timeout: 10)))
                let directory = output.map { URL(fileURLWithPath: $0, isDirectory: true) }
                let added: AddedProvider
                do {
                    added = try await oauth.addProvider(issuer: issuer, id: id, options: options, directory: directory, replacing: force)
                } catch let error as AddProviderError where error.code == .notClean {
                    // One line per finding, each escaped on its own, as `lint` prints them.
                    for finding in error.findings { Output.stderr(Output.line(finding) + "\n") }
                    throw CommandFailure(error.message)
                } catch let error as AddProviderError where error.code == .fileExists {
                    throw CommandFailure("\(error.message); write over it with `\(rerun(id: id, adding: []))`")
                }
                let draft = added.draft
                if (try? ProviderRegistry.load().entry(named: draft.id)) != nil {
                    Output.stderr(
                        "note: `\(draft.id)` is also a bundled provider; this file replaces it for every command that reads \(added.file.deletingLastPathComponent().path)\n"
                    )
                }
                for note in draft.notes { Output.stderr("note: \(Output.line(note))\n") }
                Output.stderr("Read \(Output.line(draft.metadataURL.absoluteString)); wrote \(added.file.path) (lint --strict: clean).\n")
                Output.stderr(nextSteps(draft, file: added.file))
                Output.stdoutExact(added.file.path + "\n")
            }
        }

        /// What signing in with the file needs, as commands to run: the redirect URI to register, the `login` that works
        /// with what the descriptor lists, and the flags that write it again for what the metadata left open.
        func nextSteps(_ draft: DescriptorDraft, file: URL) -> String {
            let quoted = LoginCommand.shellQuoted
            // A file written elsewhere than the user providers directory is found only with --providers-dir.
            let directory = output.map { " --providers-dir \(quoted($0))" } ?? ""
            let login = "oauthflow login \(quoted(draft.id))\(directory) --client-id CLIENT_ID"
            var steps: [String] = []
            if let redirect = draft.redirectURI {
                // The post-logout redirect URI beside it: a server that compares it exactly leaves `logout --end-session` waiting otherwise.
                let logout = draft.postLogoutRedirectURI.map {
                    ", and \($0.absoluteString) as its post-logout redirect URI (for `oauthflow logout \(quoted(draft.id))\(directory) --end-session`)"
                }
                steps.append(
                    options.loopbackPort == nil
                        ? "Register \(redirect.absoluteString) as a redirect URI of your client at the server\(logout ?? ""); the port is ephemeral, so the server must take any loopback port (RFC 8252 §7.3)."
                        : "Register \(redirect.absoluteString) as a redirect URI of your client at the server\(logout ?? ""), exactly: the port is fixed."
                )
            }
            let methods = draft.clientAuthMethods
            if methods.contains(.none) {
                steps.append(
                    "Sign in with a public client: `\(login)` (a confidential client adds `--client-secret-env SECRET_VARIABLE`, the variable that holds its secret)."
                )
            } else {
                let credential: String
                switch methods.first {
                case .clientSecretBasic?, .clientSecretPost?, .clientSecretJWT?:
                    credential = "`\(login) --client-secret-env SECRET_VARIABLE`, SECRET_VARIABLE naming the variable that holds the client's secret"
                case .privateKeyJWT?:
                    credential =
                        "`\(login)` with the client's private key in $\(ClientSettingsResolver.clientSecretVariable(for: draft.id).dropLast("CLIENT_SECRET".count))PRIVATE_KEY"
                default:
                    credential =
                        "`\(login)` with the client's certificate and key under `\(draft.id):` in clients.yaml (certificate_file, private_key_file)"
                }
                steps.append("Sign in with a confidential client: \(credential) (the server's metadata lists no `none`, for public clients).")
            }
            let gaps = draft.openAssumptions
            if gaps.contains(.publicClients) {
                steps.append(
                    "For a public client the server takes all the same, write the file again with `\(rerun(id: draft.id, adding: ["--public-client"]))`, then sign in with `\(login)`."
                )
            }
            if gaps.contains(.offlineAccess) {
                // Each command writes the whole file from the flags it is given: one that left out the other's flag would undo it.
                let both =
                    gaps.contains(.publicClients)
                    ? " (after the step above, keep its flag: `\(rerun(id: draft.id, adding: ["--public-client", "--offline-access"]))`)" : ""
                steps.append(
                    "Sign-ins do not ask for offline_access (the server does not list it), so a refresh token comes only if the server issues one unasked; if it grants one for offline_access, write the file again with `\(rerun(id: draft.id, adding: ["--offline-access"]))`\(both)."
                )
            }
            steps.append("Check the file against the live document now and then: `oauthflow lint --online --strict \(quoted(file.path))`.")
            return "Next:\n" + steps.enumerated().map { "  \($0.offset + 1). \($0.element)\n" }.joined()
        }

        /// This command again, writing over the file, with its flags and `flags` more. Every flag it was given is kept:
        /// the file is written from the flags alone, so one left out is undone.
        func rerun(id: String?, adding flags: [String]) -> String {
            var words = ["oauthflow", "providers", "add", issuer]
            if let id { words += ["--id", id] }
            if let output { words += ["--output", output] }
            if let port { words += ["--port", port] }
            if publicClient || flags.contains("--public-client") { words.append("--public-client") }
            if offlineAccess || flags.contains("--offline-access") { words.append("--offline-access") }
            words.append("--force")
            return words.map(LoginCommand.shellQuoted).joined(separator: " ")
        }
    }
}
#endif
