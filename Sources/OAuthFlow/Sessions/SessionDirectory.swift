import Foundation
import OAuthFlowFiles

/// A store that can find the sessions a provider's logout names, so back-channel and front-channel
/// logout end them in every instance that shares the store.
public protocol SessionDirectory: TokenStore {
    /// The keys of `providerID`'s stored sessions that belong to the provider sessions `match` names.
    func keys(of providerID: String, matching match: ProviderSession.Match) async throws -> [SessionKey]
}

extension InMemoryTokenStore: SessionDirectory {
    public func keys(of providerID: String, matching match: ProviderSession.Match) -> [SessionKey] {
        sessions.values.filter { $0.key.providerID == providerID && match.matches($0.providerSession) }.map(\.key)
            .sorted { $0.account < $1.account }
    }
}

extension FileTokenStore: SessionDirectory {
    /// Reads every session file of `providerID` (`PROVIDER--*.json`); unreadable ones are skipped and left in place.
    public func keys(of providerID: String, matching match: ProviderSession.Match) async throws -> [SessionKey] {
        let prefix = StateFiles.stemComponent(providerID) + "--"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch CocoaError.fileReadNoSuchFile {
            return []
        } catch {
            throw TokenStoreError(.io, "cannot list \(directory.path): \(error)", path: directory.path)
        }
        var keys: [SessionKey] = []
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(".json") && !name.hasSuffix(".received.json") {
            let path = directory.appendingPathComponent(name).path
            guard let data = try? readPrivateFile(path), let session = try? Self.decode(data, path: path),
                session.key.providerID == providerID, match.matches(session.providerSession)
            else { continue }
            keys.append(session.key)
        }
        return keys
    }
}

extension SessionDirectory {
    /// Acts on each stored session of `providerID` that `match` names, under the store's lock: each is read again under
    /// the lock (the key may hold another sign-in by now), and one whose user signed in after `signedInBy` is left alone.
    /// What a provider's logout and its security events do to the sessions they name, so that a refresh under way on
    /// another instance cannot write a session back.
    ///
    /// - Returns: The keys of the sessions `body` was given.
    /// - Throws: Store errors, and `body`'s; the sessions acted on before stay so.
    package func withEachSession(
        of providerID: String, matching match: ProviderSession.Match, signedInBy: Date?, _ body: (StoredSession) async throws -> Void
    ) async throws -> [SessionKey] {
        var done: [SessionKey] = []
        for key in try await keys(of: providerID, matching: match) {
            let lock = try await lock(key)
            defer { lock.release() }
            guard let session = try await self.load(key), match.matches(session.providerSession),
                session.providerSession?.signedIn(after: signedInBy) != true
            else { continue }
            try await body(session)
            done.append(key)
        }
        return done
    }
}
