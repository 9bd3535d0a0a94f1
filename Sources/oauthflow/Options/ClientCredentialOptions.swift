#if CLI
import ArgumentParser
import OAuthFlow

/// How the client authenticates: `--client-secret-env` and `--client-auth`, declared once for every command that uses a
/// client (`login`, `authorize-url`, the session commands, the service-token commands).
struct ClientCredentialOptions: ParsableArguments {
    @Option(name: .customLong("client-secret-env"), help: "An environment variable holding the client secret (never the secret itself).")
    var secretEnvironment: String?

    @Option(
        name: .customLong("client-auth"),
        help:
            "How the client authenticates: a method the provider lists, such as client_secret_basic or private_key_jwt (default: the first the client has a credential for)."
    )
    var method: String?

    /// Not an option: a secret on the command line is kept in the shell's history and shown by `ps`. Declared, hidden,
    /// so that `--client-secret VALUE` is told what to do instead of "Unknown option", and the value is never repeated.
    @Option(name: .customLong("client-secret"), help: .hidden)
    var secretOnTheCommandLine: String?

    func validate() throws {
        if secretOnTheCommandLine != nil {
            throw ValidationError(
                "--client-secret is not an option: a secret on the command line stays in the shell's history and shows in `ps`. Put it in an environment variable and give the variable's name: --client-secret-env NAME (or `client_secret_env` in the clients file)"
            )
        }
        guard let method, ProviderDescriptor.ClientAuthMethod(rawValue: method) == nil else { return }
        throw ValidationError(
            "--client-auth must be one of \(ProviderDescriptor.ClientAuthMethod.allCases.map(\.rawValue).joined(separator: ", ")), not \(method)")
    }

    /// The method `--client-auth` names, once ``validate()`` has accepted it.
    var authMethod: ProviderDescriptor.ClientAuthMethod? { method.flatMap(ProviderDescriptor.ClientAuthMethod.init(rawValue:)) }

    /// What the flags say about the client, with the client id, variables and scopes the command's other flags give.
    func overrides(clientID: String? = nil, variables: [String: String] = [:], scopes: [String]? = nil) -> ClientSettings.Overrides {
        ClientSettings.Overrides(clientID: clientID, secretVariable: secretEnvironment, authMethod: authMethod, variables: variables, scopes: scopes)
    }
}
#endif
