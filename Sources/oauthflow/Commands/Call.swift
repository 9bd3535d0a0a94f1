#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "call",
            abstract: "GET a protected resource with the stored session's access token, refreshing it when needed.",
            discussion: "Prints the HTTP status on stderr and the body on stdout. Exits 1 unless the status is 2xx.")

        @OptionGroup var session: SessionOptions

        @Argument(help: "A resource title from `oauthflow resources`, or a URL.")
        var target: String

        @Flag(help: "Call with a token for the client itself (client credentials, as `token client`) instead of the stored session's.")
        var service = false

        /// With --service: what the token is asked for, and the client.
        @OptionGroup(title: "With --service") var wanted: ServiceRequestOptions

        @OptionGroup(title: "With --service") var variableOptions: VariableOptions

        func validate() throws {
            if !service, !wanted.isEmpty || !variableOptions.variables.isEmpty {
                throw ValidationError("--scope, --resource, --audience, --client-id and --var go with --service")
            }
            if service, session.account != "default" {
                throw ValidationError("--account names a signed-in session; --service calls with the client's own token")
            }
        }

        func run() async throws {
            if service {
                try await callAsService()
                return
            }
            let (response, stored, required) = try await session.withManager(validToken: true) { manager, stored, provider in
                let url: URL
                if let resource = provider.resources.resource(titled: target) {
                    // A resource whose scope was not granted would only answer 403: say why, and how to add the scope.
                    let granted = try await manager.session().tokens.scopes
                    guard granted.contains(resource.scope) else {
                        let add = session.signInAgain(stored, extra: ["--add-scope", resource.scope])
                        throw CommandFailure(
                            "`\(resource.title)` needs the scope `\(resource.scope)`, which this session was not granted (granted: \(granted.joined(separator: " "))); add it to this session with `\(add.text)`"
                        )
                    }
                    url = resource.url
                } else if let parsed = URL(string: target), parsed.scheme != nil, parsed.host != nil {
                    url = parsed
                } else {
                    throw CommandFailure("`\(target)` is neither a resource of \(provider.id) nor a URL; see `oauthflow resources \(provider.id)`")
                }
                // perform answers any HTTP status; what it throws comes from the refresh after a 401, or the network.
                let response = try await manager.perform(TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
                return (response, stored, Required(providerID: provider.id, classes: provider.policy.acrValues))
            }
            try report(response, required: required) { session.signInAgain(stored, extra: $0).text }
        }

        /// The client as `token client` resolves it, with this command's flags.
        private var overrides: ClientSettings.Overrides {
            var overrides = session.overrides
            overrides.clientID = wanted.clientID
            overrides.variables = variableOptions.values
            return overrides
        }

        /// The call with a client-credentials token; a 401 `invalid_token` renews the token and calls once more.
        private func callAsService() async throws {
            let registry = session.registryOptions
            let name = session.name
            let target = self.target
            let request = wanted.request
            let call = { (tokens: ServiceTokens) async throws -> TransportResponse in
                let provider = tokens.client.provider
                guard let url = provider.resources.resource(titled: target)?.url ?? URL(string: target).flatMap({ $0.host == nil ? nil : $0 }) else {
                    throw CommandFailure("`\(target)` is neither a resource of \(provider.id) nor a URL; see `oauthflow resources \(provider.id)`")
                }
                return try await tokens.send(TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]), for: request)
            }
            let response = try await ServiceOptions.withServiceTokens(
                registry: registry, overrides: overrides, provider: name, scopes: wanted.scopes, call)
            try report(response, required: nil, signIn: nil)
        }

        /// The authentication context classes the session's descriptor asks of every sign-in (`authorization.acr_values`).
        struct Required {
            let providerID: String
            let classes: [String]
        }

        /// Reports the API's answer; `signIn` makes the command that signs the session in again with extra flags (nil
        /// for the client's own token, which no sign-in renews), at the provider that `required` names.
        private func report(_ response: TransportResponse, required: Required?, signIn: (([String]) -> String)?) throws {
            Output.stderr("HTTP \(response.status)\(Self.refusal(response, required: required, signIn: signIn).map { ": " + $0 } ?? "")\n")
            Output.stdoutData(response.body)
            if !(200..<300).contains(response.status) { throw ExitCode.failure }
        }

        /// What a refusing API's challenge says (RFC 6750 §3): its error, the scope it asks for, and the step-up it asks
        /// for (RFC 9470) as the sign-in again (`signIn`, given the flags) that asks it. A step-up only adds to what the
        /// descriptor asks of every sign-in (RFC 9470 §4): the flags ask those of the challenge's classes it accepts too.
        static func refusal(_ response: TransportResponse, required: Required?, signIn: (([String]) -> String)?) -> String? {
            guard [401, 403].contains(response.status), let challenge = response.challenges.first(where: { $0.error != nil }) else { return nil }
            var text = "the API answered `\(Output.line(challenge.error ?? ""))`"
            if !challenge.scopes.isEmpty {
                text += "; it asks for the scope `\(Output.line(challenge.scopes.joined(separator: " ")))`"
            }
            // RFC 9470: what a new sign-in must ask for, in the flags that ask it.
            if let signIn, let stepUp = ProtectedResource.StepUp(challenges: response.header("www-authenticate").map { [$0] } ?? []) {
                let descriptor = required?.classes ?? []
                guard let classes = ClientConfiguration.authenticationClasses(stepUp.acrValues, within: descriptor) else {
                    let asked = Output.line(stepUp.acrValues.joined(separator: " "))
                    return text
                        + "; it asks for a step-up to the authentication class `\(asked)`, none of which `\(required?.providerID ?? "")` accepts (its descriptor asks every sign-in for one of `\(Output.line(descriptor.joined(separator: " ")))`, and a step-up can only add to that): no sign-in there can meet it"
                }
                var flags: [String] = []
                if !stepUp.acrValues.isEmpty { flags += ["--acr-values", classes.joined(separator: " ")] }
                if let age = stepUp.maximumAge { flags += ["--max-age", "\(age)"] }
                text += "; it asks for a step-up: sign in again with `\(Output.line(signIn(flags)))`"
            }
            return text
        }
    }
}
#endif
