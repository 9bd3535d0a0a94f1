import Foundation

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
        let prefix = Self.fileComponent(providerID) + "--"
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
