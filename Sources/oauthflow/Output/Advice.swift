import Foundation
import OAuthFlow

/// The `oauthflow login …` command line that signs a session in again as it was: same account,
/// variables, client id and secret variable, so it works when run as printed.
struct LoginCommand {
    /// `login`, or `authorize-url` for a manual sign-in.
    var command = "login"
    var provider: String
    var account: String = "default"
    var clientID: String?
    var variables: [String: String] = [:]
    var secretEnvironment: String?
    /// Further words, such as `--device` or `--add-scope write`.
    var extra: [String] = []

    /// The command for a stored session: its client id and variables, the account of its key.
    init(session: StoredSession, secretEnvironment: String? = nil, extra: [String] = []) {
        provider = session.key.providerID
        account = session.key.account
        clientID = session.clientID
        variables = session.variables
        self.secretEnvironment = secretEnvironment
        // A secret method with no variable named here: show where the secret goes.
        if secretEnvironment == nil, let method = session.clientAuthentication, method != .none {
            self.secretEnvironment = "VAR"
        }
        self.extra = extra
    }

    init(provider: String, account: String, clientID: String?, variables: [String: String], secretEnvironment: String?,
         extra: [String] = [], command: String = "login") {
        self.command = command
        self.provider = provider
        self.account = account
        self.clientID = clientID
        self.variables = variables
        self.secretEnvironment = secretEnvironment
        self.extra = extra
    }

    var text: String {
        var words = ["oauthflow", command, provider]
        if let clientID { words += ["--client-id", clientID] }
        for (name, value) in variables.sorted(by: { $0.key < $1.key }) { words += ["--var", "\(name)=\(value)"] }
        if account != "default" { words += ["--account", account] }
        if let secretEnvironment { words += ["--client-secret-env", secretEnvironment] }
        words += extra
        return words.map(Self.shellQuoted).joined(separator: " ")
    }

    /// A word as a POSIX shell reads it back: bare when it is plain, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.,:/=@%+"))
        if !word.isEmpty, word.unicodeScalars.allSatisfy({ $0.isASCII && plain.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

/// What to do next after a failure, in one sentence for stderr.
enum Advice {
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
    static func clientAuthentication(_ error: any Error, secretSource: String?) -> String? {
        guard let error = error as? AuthorizationServerError, ["invalid_client", "unauthorized_client"].contains(error.error) else {
            return nil
        }
        if let secretSource {
            return "the provider did not accept this client's credentials: check that the client secret (from \(secretSource)) belongs to this client id and is current"
        }
        return "no client secret was sent: if this client is confidential, name its secret with --client-secret-env VAR (or client_secret_env in clients.yaml)"
    }

    /// After a revocation failed: whether the tokens stay valid (the provider answered and refused) or may.
    static func revocationFailed(_ error: any Error) -> String? {
        let refused = "the provider refused to revoke, so the tokens stay valid until they expire (providers often refuse revocation from public clients, or want client authentication)"
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
}
