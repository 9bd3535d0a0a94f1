import Foundation

/// The provider sessions a logout names: by `sid`, or every session of a `sub` (Back-Channel Logout 1.0 §2.7).
public struct ProviderSessionMatch: Sendable, Hashable, CustomStringConvertible {
    public let issuer: String
    public let subject: String?
    public let sessionID: String?

    /// Nil when neither a subject nor a session id is given: such a logout names nobody.
    public init?(issuer: String, subject: String?, sessionID: String?) {
        let subject = subject.flatMap { $0.isEmpty ? nil : $0 }
        let sessionID = sessionID.flatMap { $0.isEmpty ? nil : $0 }
        guard subject != nil || sessionID != nil else { return nil }
        self.issuer = issuer
        self.subject = subject
        self.sessionID = sessionID
    }

    /// Whether `session` is one of those named: same issuer, and the `sid` (when given) and the `sub` (when given).
    public func matches(_ session: ProviderSession?) -> Bool {
        guard let session, session.issuer == issuer else { return false }
        if let sessionID, session.sessionID != sessionID { return false }
        if let subject, session.subject != subject { return false }
        return true
    }

    public var description: String {
        [sessionID.map { "sid \(TerminalText.escaped($0))" }, subject.map { "sub \(TerminalText.escaped($0))" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
}

/// A store that can find the sessions a provider's logout names, so back-channel and front-channel
/// logout end them in every instance that shares the store.
public protocol SessionDirectory: TokenStore {
    /// The keys of `providerID`'s stored sessions that belong to the provider sessions `match` names.
    func keys(of providerID: String, matching match: ProviderSessionMatch) async throws -> [SessionKey]
}

extension InMemoryTokenStore: SessionDirectory {
    public func keys(of providerID: String, matching match: ProviderSessionMatch) -> [SessionKey] {
        sessions.values.filter { $0.key.providerID == providerID && match.matches($0.providerSession) }.map(\.key)
            .sorted { $0.account < $1.account }
    }
}

extension FileTokenStore: SessionDirectory {
    /// Reads every session file of `providerID` (`PROVIDER--*.json`); unreadable ones are skipped and left in place.
    public func keys(of providerID: String, matching match: ProviderSessionMatch) async throws -> [SessionKey] {
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
