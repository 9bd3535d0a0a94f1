#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct VerifyToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-token",
            abstract: "Check an access token (read from standard input) as an API trusting one provider would.",
            discussion: """
                Prints the verified principal as JSON on stdout, or the exact reason the token is refused on stderr \
                (exit 1). The token itself is never printed. JWTs are checked with the provider's JWKS and its \
                `access_tokens` rules; opaque tokens are introspected with the client `login` would use \
                (flags, OAUTHFLOW_<PROVIDER>_* variables, the clients file). A DPoP- or certificate-bound token \
                is refused: its proof cannot be given here.
                """)

        @Argument(help: "The provider id.")
        var provider: String

        @Option(
            help:
                "The API's audience, the `aud` its tokens carry: required when the descriptor states no access_tokens.audience (none is assumed), and replaces it when it does."
        )
        var audience: String?

        @Option(name: .customLong("client-id"), help: "The introspection client's id (default: OAUTHFLOW_<PROVIDER>_CLIENT_ID or the clients file).")
        var clientID: String?

        @Option(name: .customLong("client-secret-env"), help: "An environment variable holding the introspection client's secret.")
        var clientSecretEnvironment: String?

        @OptionGroup var variableOptions: VariableOptions
        @OptionGroup var registryOptions: RegistryOptions

        func validate() throws {
            if let audience, audience.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError(
                    "--audience is empty; give the audience the API's tokens carry in `aud`, or leave it out to use the descriptor's access_tokens.audience"
                )
            }
        }

        func run() async throws {
            let input = await StandardInput.readToEnd().prefix(ProtectedResource.maximumTokenSize + 1024)
            let token = Secret(String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            guard !token.value.isEmpty else {
                Output.stderr("error: no token on standard input; pipe the access token in (it is never printed)\n")
                throw ExitCode.failure
            }
            let principal: ProtectedResource.Principal
            do {
                let overrides = ClientSettings.Overrides(
                    clientID: clientID, secretVariable: clientSecretEnvironment, variables: variableOptions.values)
                let oauth = registryOptions.oauth(overrides: [provider: overrides], timeout: 10)
                principal = try await oauth.verifyAccessToken(token, issuedBy: provider, audience: audience)
            } catch let denial as ProtectedResource.Denial {
                Output.stderr("REFUSED (\(denial.code), HTTP \(denial.status)): \(Output.line(denial.reason))\n")
                throw ExitCode.failure
            } catch {
                throw Output.fail(error, advice: introspectionClientAdvice(error))
            }
            Output.stderr("Accepted: \(principal.checks).\n")
            Output.stdoutExact(try Output.json(principal.summary))
        }

        /// Where the introspection client is given, after it was missing or refused.
        func introspectionClientAdvice(_ error: any Error) -> String? {
            let flags =
                "--client-id ID and --client-secret-env VAR (the variable holding its secret), or OAUTHFLOW_<PROVIDER>_CLIENT_ID and _CLIENT_SECRET, or the clients file"
            switch error {
            case let error as ClientSettingsError where error.code == .missingClientID:
                return "this provider's tokens are introspected, which needs the API's own client at the provider: name it with \(flags)"
            case let error as FlowError where error.code == .missingClientSecret:
                return Advice.credential(error, signingIn: false)
            case is AuthorizationServerError,
                is FlowError where (error as? FlowError)?.code == .unexpectedStatus:
                return
                    "the provider refused the API's client at its introspection endpoint: check that the client given (\(flags)) is the one registered there, its secret current, and that the provider lets it introspect tokens"
            default:
                return nil
            }
        }
    }
}

extension ProtectedResource.Principal {
    /// What `verify-token` says was checked, and what was not.
    fileprivate var checks: String {
        var checked = source == .jwt ? ["signature (the provider's keys)", "issuer", "expiry"] : ["active (introspected by the provider)"]
        var unchecked: [String] = []
        if source == .introspection {
            if claims["iss"] != nil { checked.append("issuer") } else { unchecked.append("issuer (the answer names none)") }
            if expiresAt != nil { checked.append("expiry") } else { unchecked.append("expiry (the answer names none)") }
        }
        if isAudienceChecked {
            checked.append("audience")
        } else {
            unchecked.append("audience (the introspection answer names none; accepted by `access_tokens.introspected_audience: may_be_absent`)")
        }
        if source == .jwt { unchecked.append("revocation (a JWT is not introspected)") }
        return "checked " + checked.joined(separator: ", ") + (unchecked.isEmpty ? "" : "; NOT checked: " + unchecked.joined(separator: ", "))
    }

    /// What `verify-token` prints.
    fileprivate var summary: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "provider": .string(providerID), "issuer": .string(issuer), "source": .string(source.rawValue),
            "scopes": .array(scopes.map(JSONValue.string)), "audiences": .array(audiences.map(JSONValue.string)), "claims": .object(claims),
            "audience_checked": .bool(isAudienceChecked),
        ]
        if let subject { fields["subject"] = .string(subject) }
        if let clientID { fields["client_id"] = .string(clientID) }
        if let expiresAt { fields["expires_at"] = .string(ISO8601DateFormatter().string(from: expiresAt)) }
        return fields
    }
}
#endif
