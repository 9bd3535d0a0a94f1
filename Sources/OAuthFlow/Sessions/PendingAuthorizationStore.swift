import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Authorizations started now and finished later, perhaps by another process: the URL is
/// opened on another device and the redirect is pasted back (`oauthflow authorize-url`,
/// then `oauthflow login --callback-url`).
///
/// An entry holds the PKCE verifier, so it is kept like a session: beside the sessions of a
/// ``FileTokenStore``, as `PROVIDER--ACCOUNT.pending.json`, 0600, written atomically, read
/// only from a private directory, never through a link.
package struct PendingAuthorizationStore: Sendable {
    /// One authorization in progress and what finishing it needs.
    public struct Entry: Sendable, Codable {
        public var pending: PendingAuthorization
        public var clientID: String
        /// The provider's variable values, to resolve it again when finishing.
        public var variables: [String: String]
        /// The token endpoint the code is for, and the authorization server (`Provider.authorizationServer`), as the
        /// sign-in started (nil in entries written before OAuthFlow kept them).
        public var tokenEndpoint: URL?
        public var authorizationServer: String?

        public init(
            pending: PendingAuthorization, clientID: String, variables: [String: String], tokenEndpoint: URL? = nil,
            authorizationServer: String? = nil
        ) {
            self.pending = pending
            self.clientID = clientID
            self.variables = variables
            self.tokenEndpoint = tokenEndpoint
            self.authorizationServer = authorizationServer
        }
    }

    private let files: FileTokenStore

    /// - Parameter store: The session store whose directory the entries share.
    public init(beside store: FileTokenStore) {
        files = store
    }

    private func path(for key: SessionKey) -> String {
        files.companionPath(for: key, suffix: ".pending.json")
    }

    /// Keeps an authorization in progress, replacing any earlier one for the same session.
    public func save(_ entry: Entry, for key: SessionKey) throws {
        try files.writePrivateFile(try JSONEncoder().encode(entry), to: path(for: key))
    }

    /// The authorization in progress for a session, if any.
    ///
    /// - Throws: ``TokenStoreError`` for a file that is not private, not regular, or not an entry.
    public func load(for key: SessionKey) throws -> Entry? {
        let path = path(for: key)
        guard let data = try files.readCompanion(path) else { return nil }
        do {
            return try JSONDecoder().decode(Entry.self, from: data)
        } catch {
            throw TokenStoreError(.corrupt, "\(path) is not an authorization in progress; start the sign-in again", path: path)
        }
    }

    /// Takes the authorization in progress whose `state` is `state`, once: it is renamed away (one process only can),
    /// and forgotten when it is that one. Another, started since, is put back unless one newer still is there.
    ///
    /// - Returns: Whether this call took it; false when it is gone, another's, or unreadable.
    package func claim(for key: SessionKey, state: Secret) -> Bool {
        let path = path(for: key)
        let claimed = path + ".claimed-" + UUID().uuidString
        guard rename(path, claimed) == 0 else { return false }
        defer {
            unlink(claimed)
            files.syncDirectory()
        }
        let entry = (try? files.readCompanion(claimed)).flatMap { $0 }.flatMap { try? JSONDecoder().decode(Entry.self, from: $0) }
        if entry?.pending.state == state { return true }
        _ = link(claimed, path)  // fails, keeping the newer, when one was written meanwhile
        return false
    }
}
