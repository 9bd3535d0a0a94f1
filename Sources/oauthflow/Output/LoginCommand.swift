#if CLI
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
    /// The `--providers-dir` directories the command was given: the provider may be found only there.
    var providerDirectories: [String] = []

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
        // Signed in without asking for a refresh token: so again (a provider may show a consent page for one).
        self.extra = (session.offlineAccessRequested == false && !extra.contains("--no-offline") ? ["--no-offline"] : []) + extra
    }

    init(
        provider: String, account: String = "default", clientID: String? = nil, variables: [String: String] = [:],
        secretEnvironment: String? = nil, extra: [String] = [], command: String = "login"
    ) {
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
        for directory in providerDirectories { words += ["--providers-dir", directory] }
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
#endif
