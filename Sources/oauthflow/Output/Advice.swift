#if CLI
import Foundation
import OAuthFlow

/// What to do next after a failure, in one sentence for stderr: the command-line flags the library's
/// own sentences cannot name.
enum Advice {
    /// No advice beyond the error's own sentence.
    static func general(_ error: any Error) -> String? {
        nil
    }

    /// For a command with `--client-id` (`login`, `authorize-url`): the flag is a third place for the client id.
    /// The same for the credential a confidential client's provider needs before anything is sent: each of the client
    /// secret, private key and certificate the error says is needed, with where it is given.
    static func clientID(_ error: any Error) -> String? {
        if let credential = credential(error) { return credential }
        guard let error = error as? ClientSettingsError, error.code == .missingClientID else { return nil }
        return "or name the client on the command line with --client-id ID"
    }

    /// For any command that uses the client: each of the client secret, private key and certificate the error says is
    /// needed, with where it is given; and, for a client with none, that the provider may take public clients.
    /// - Parameter signingIn: Whether a client is signing in, which may be a public one.
    static func credential(_ error: any Error, signingIn: Bool = true) -> String? {
        // Refused before anything was sent: signing in (FlowError) or refreshing a confidential client's session.
        let message: String
        if let error = error as? FlowError, error.code == .missingClientSecret {
            message = error.message
        } else if let error = error as? SessionError, error.code == .missingClientCredential {
            message = error.message
        } else {
            return nil
        }
        var ways: [String] = []
        if message.contains("a client secret") {
            ways.append(
                "the client's secret with --client-secret-env VAR (the variable holding it), or client_secret_env or client_secret_file in clients.yaml"
            )
        }
        if message.contains("a private key") {
            ways.append(
                "the client's private key with private_key_file or private_key_env in clients.yaml, or $OAUTHFLOW_<PROVIDER>_PRIVATE_KEY (with key_id, and signing_alg: PS256 for an RSA key under FAPI 2.0)"
            )
        }
        if message.contains("a client certificate") {
            ways.append("the client's certificate with certificate_file and its key with private_key_file in clients.yaml")
        }
        guard !ways.isEmpty else { return nil }
        var advice = "name " + ways.joined(separator: "; or ")
        if signingIn, message.contains("(it accepts ") {
            // A public client meets this where the server takes public clients but its metadata lists no `none`.
            advice +=
                "; or, for a public client (no secret) the server takes although the descriptor does not list `none`, list `none` in its client_auth.methods (a file `oauthflow providers add` wrote: write it again with --public-client and --force)"
        }
        return advice
    }

    /// After a failed refresh the provider answered with a definite refusal (a 4xx, or a signed-out session):
    /// the stored session cannot be used again, so sign in anew.
    static func afterRefresh(_ error: any Error, signIn: LoginCommand) -> String? {
        if let error = error as? SessionError, error.code == .notSignedIn {
            return "sign in again with `\(signIn.text)`"
        }
        guard refusedByServer(error) else { return nil }
        // The library's own hint may have said so already: then only the command is new.
        if "\(error)".contains("cannot be refreshed") { return "to sign in again: `\(signIn.text)`" }
        return "the provider refused the refresh, so this session cannot be refreshed again; sign in again with `\(signIn.text)`"
    }

    /// Whether the token endpoint gave a definite answer (4xx) rather than failing to answer.
    static func refusedByServer(_ error: any Error) -> Bool {
        switch error {
        case let error as SessionError:
            return error.code == .signedOut
        case let error as AuthorizationServerError:
            return error.httpStatus.map { (400..<500).contains($0) } ?? true
        case let error as FlowError:
            // "the token endpoint answered HTTP 400 with an empty body": a refusal that names no OAuth error.
            return error.code == .invalidTokenResponse
                && error.message.range(of: #"^the token endpoint answered HTTP 4\d\d "#, options: .regularExpression) != nil
        default:
            return false
        }
    }

    /// After the token endpoint refused the client itself: which secret was sent, and where it came from.
    static func clientAuthentication(_ error: any Error, secretSource: ClientSettings.SecretSource?) -> String? {
        guard let error = error as? AuthorizationServerError, error.refusesClient else {
            return nil
        }
        if let secretSource {
            return
                "the provider did not accept this client's credentials: check that the client secret (from \(secretSource.named)) belongs to this client id and is current"
        }
        return
            "no client secret was sent: if this client is confidential, name its secret with --client-secret-env VAR (or client_secret_env in clients.yaml)"
    }

    /// After a revocation failed: whether the tokens stay valid (the provider answered and refused) or may.
    static func revocationFailed(_ error: any Error) -> String? {
        let refused =
            "the provider refused to revoke, so the tokens stay valid until they expire (providers often refuse revocation from public clients, or want client authentication)"
        switch error {
        case is AuthorizationServerError:
            return refused
        case let error as FlowError where error.code == .unexpectedStatus:
            return refused
        case let error as FlowError where error.code == .missingEndpoint:
            return "the provider has no revocation endpoint, so the tokens stay valid until they expire"
        case is TransportError:
            return "the provider could not be reached, so the tokens may stay valid until they expire"
        default:
            return nil
        }
    }

    /// After a service-token command failed on the client's credential: which method was used and where its
    /// credential came from, and where to give one.
    static func serviceClient(_ error: any Error, provider: String, method: ProviderDescriptor.ClientAuthMethod?, settings: ClientSettings)
        -> String?
    {
        let file = CommandEnvironment.clients.clientsFileURL.path
        if let error = error as? FlowError, error.code == .missingClientSecret {
            let prefix = ClientSettingsResolver.clientSecretVariable(for: provider).dropLast("CLIENT_SECRET".count)
            switch method {
            case .clientSecretBasic?, .clientSecretPost?, .clientSecretJWT?:
                // Only a secret satisfies these: a key or a certificate would not.
                return
                    "give the client's secret: --client-secret-env VAR, \(prefix)CLIENT_SECRET, or client_secret_env or client_secret_file under `\(provider):` in \(file) (in the entry of client `\(settings.clientID)`)"
            case .privateKeyJWT?:
                return
                    "give the client's private key: \(prefix)PRIVATE_KEY, or private_key_file under `\(provider):` in \(file) (in the entry of client `\(settings.clientID)`)"
            default:
                return
                    "give the client's credential: --client-secret-env VAR, \(prefix)CLIENT_SECRET or \(prefix)PRIVATE_KEY, or client_secret_env, client_secret_file, private_key_file or certificate_file under `\(provider):` in \(file)"
            }
        }
        guard let error = error as? AuthorizationServerError, error.refusesClient, let method else {
            return nil
        }
        let credential =
            switch method {
            case .none: "no credential"
            case .clientSecretBasic, .clientSecretPost, .clientSecretJWT: "the client secret from \(settings.secretSource?.named ?? "the host")"
            case .privateKeyJWT: "the private key from \(settings.keySource ?? "the host")"
            case .tlsClientAuth, .selfSignedTLSClientAuth: "the client certificate from the clients file"
            }
        if method == .privateKeyJWT || method == .clientSecretJWT {
            // An assertion the server read is refused for its key, its algorithm or its audience as often as for its method.
            return
                "the provider refused the client `\(settings.clientID)` authenticating with \(method.rawValue) (\(credential)): check that the key is the one registered for this client, that its algorithm is one the provider accepts (`client_auth.assertion_algs`, or the key's `alg`) and the assertion's audience (`client_auth.assertion_audience`); if the client is registered for another method, name it with --client-auth METHOD or `client_auth:` under `\(provider):` in \(file)"
        }
        return
            "the provider refused the client `\(settings.clientID)` authenticating with \(method.rawValue) (\(credential)); if it expects another method, name it with --client-auth METHOD or `client_auth:` under `\(provider):` in \(file)"
    }
}

extension Advice {
    /// After the provider refused the scopes of a token for the client itself (`invalid_scope`): which were asked for,
    /// and that such a token carries only the scopes the provider lets this client have.
    static func serviceScopes(_ error: any Error, _ scopes: [String], settings: ClientSettings) -> String? {
        guard let error = error as? AuthorizationServerError, error.error == "invalid_scope" else { return nil }
        let client = "client `\(settings.clientID)`"
        if scopes.isEmpty {
            return
                "no scope was asked for, and the provider wants one for a token of the client itself: name a scope the provider lets \(client) have with --scope S"
        }
        let asked = scopes.map { "`\(Output.line($0))`" }.joined(separator: ", ")
        return
            "the provider refused the scopes asked for (\(asked)): a token of the client itself carries only scopes the provider lets \(client) have, which are not always those a user's sign-in may ask for; ask for those with --scope (or leave --scope out for the client's default, where the provider has one), or let \(client) have these at the provider"
    }

    /// After the token endpoint failed while a client with no secret signed in (`server_error`) at an OpenID provider: a
    /// provider that signs ID tokens with a secret cannot sign them for a public client, which has none.
    static func publicClientServerError(_ error: any Error, provider: Provider, secretSource: ClientSettings.SecretSource?) -> String? {
        guard let error = error as? AuthorizationServerError, error.error == "server_error", secretSource == nil, provider.protocol == .oidc
        else { return nil }
        return
            "the provider failed while issuing this public client's tokens. A provider that signs ID tokens with the client's secret (HS256, HS384 or HS512: LemonLDAP::NG does so by default) has no secret to sign them with for a public client: set this client's ID token signing algorithm at the provider to one the descriptor's `security.id_token_algs` accepts (\(provider.policy.idTokenAlgorithms.map(\.rawValue).joined(separator: ", "))), or sign in as a confidential client with --client-secret-env VAR"
    }
}

extension ClientSettings.SecretSource {
    /// Where the secret came from, naming the flag for a variable given on the command line.
    var named: String {
        if case let .namedVariable(variable) = self { return "$\(variable), named by --client-secret-env" }
        return description
    }
}
#endif
