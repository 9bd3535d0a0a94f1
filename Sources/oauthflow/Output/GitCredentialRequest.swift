#if CLI
import Foundation
import OAuthFlow
import OAuthFlowFiles

/// git's credential-helper protocol (gitcredentials(7), git-credential(1)): `key=value` lines.
struct GitCredentialRequest: Sendable, Hashable {
    /// Every attribute git sent, by name (for repeated names, the last).
    let attributes: [String: String]

    var protocolName: String? { attributes["protocol"] }
    var host: String? { attributes["host"] }
    /// Sent only when `credential.useHttpPath` is set.
    var path: String? { attributes["path"] }

    /// Reads the attributes up to a blank line or the end.
    ///
    /// - Throws: ``CommandFailure`` for a line without `=`, a NUL or line break inside a value,
    ///   or more than 64 KiB (git sends a few hundred bytes).
    init(parsing text: String) throws {
        do {
            attributes = try GitCredentialLines.parse(text)
        } catch let error as GitCredentialLines.Malformed {
            throw CommandFailure(error.message)
        }
    }

    /// The answer to `get`: `username`, `password` and, when the token's expiry is known, `password_expiry_utc`.
    ///
    /// - Throws: ``CommandFailure`` when a value would break the line format.
    static func answer(username: String, password: Secret, expiresAt: Date?) throws -> String {
        guard
            let text = GitCredentialLines.answer(
                username: username, password: password.value, expiresAt: expiresAt.map { Int($0.timeIntervalSince1970) })
        else {
            throw CommandFailure("a credential value holds a line break or NUL, which git's protocol cannot carry")
        }
        return text
    }

    /// The identity of the clients file at `path` (device, inode, size, times), to take before reading it and give to
    /// ``remember(answeredBy:clientsFile:identity:store:)``.
    static func identity(ofClientsFile path: String) -> String? {
        GitCredentialMemo.identity(of: path)
    }

    /// Remembers, for the `oauthflow` launcher, which session answers this request (nil `mapping`: none does) and the
    /// authorization server of the session that answered it, as decided from the clients file at `clientsFile` whose
    /// identity was `identity` before it was read. Nothing is remembered when the file changed since.
    ///
    /// The memo is a cache: a failure to write it is ignored, and the next request takes the full path again.
    func remember(
        answeredBy mapping: ClientSettingsResolver.GitCredentialMapping?, session: StoredSession? = nil, clientsFile: String, identity: String?,
        store: FileTokenStore
    ) {
        guard let identity, GitCredentialMemo.identity(of: clientsFile) == identity, let protocolName, let host else { return }
        let directory = store.directory.path
        var memo =
            GitCredentialMemo.read(sessionDirectory: directory) ?? GitCredentialMemo(clientsFile: clientsFile, clientsIdentity: identity, entries: [])
        if memo.clientsFile != clientsFile || memo.clientsIdentity != identity {
            memo = GitCredentialMemo(clientsFile: clientsFile, clientsIdentity: identity, entries: [])
        }
        let entry = GitCredentialMemo.Entry(
            protocolName: protocolName, host: host, path: path, providerID: mapping?.provider, account: mapping?.account ?? "default",
            username: mapping?.username ?? "oauth2", authorizationServer: session?.authorizationServer)
        // Already remembered: nothing to write (a request the launcher hands over, refreshing, comes back with it).
        guard !memo.entries.contains(entry) else { return }
        memo = memo.adding(entry)
        try? store.writePrivateFile(Data(memo.rendered().utf8), named: GitCredentialMemo.fileName)
    }
}
#endif
