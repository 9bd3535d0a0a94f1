#if CLI
import Foundation
import OAuthFlow
import OAuthFlowFiles

/// Records, for the `oauthflow` launcher, that a session passed the origin check every stored token passes before it
/// leaves (`OAuth.storedSession(_:account:validFor:)`), with the identity of each file that check read the provider
/// from (``SessionOriginMemo``): the launcher hands the same token out again only while none has changed.
struct SessionOriginRecord: Sendable {
    private let before: [String: String]?

    /// Takes the identity of every file the check of `providerID` reads, before it reads them: its descriptors in the
    /// bundled and the user's directories (and those directories), and the clients file. Nothing is recorded for a
    /// command given other descriptor directories (`--providers-dir`), which the launcher hands over anyway.
    init(providerID: String, environment: [String: String], otherDirectories: Bool) {
        guard !otherDirectories else {
            before = nil
            return
        }
        var paths = SessionOriginMemo.userFiles(providerID: providerID, configHome: StateFiles.configHome(environment: environment))
        if let bundled = ProviderRegistry.bundledDirectory?.path {
            paths += [bundled, bundled + "/" + providerID + ".yaml", bundled + "/" + providerID + ".yml"]
        }
        before = Self.identities(paths)
    }

    private static func identities(_ paths: [String]) -> [String: String]? {
        var found: [String: String] = [:]
        for path in paths {
            guard let identity = GitCredentialMemo.identity(of: path) else { return nil }
            found[path] = identity
        }
        return found
    }

    /// Records that `session` passed the check, unless a file changed while it ran. The memo is a cache: a failure to
    /// write it is ignored, and the next request takes the full path again.
    func remember(_ session: StoredSession, store: FileTokenStore) {
        guard let before, Self.identities(Array(before.keys)) == before else { return }
        let directory = store.directory.path
        let entry = SessionOriginMemo.Entry(
            stem: StateFiles.sessionStem(providerID: session.key.providerID, account: session.key.account),
            authorizationServer: session.authorizationServer, clientID: session.clientID, files: before)
        let memo = SessionOriginMemo.read(sessionDirectory: directory) ?? SessionOriginMemo(entries: [])
        guard !memo.entries.contains(entry) else { return }
        try? store.writePrivateFile(Data(memo.adding(entry).rendered().utf8), named: SessionOriginMemo.fileName)
    }
}
#endif
