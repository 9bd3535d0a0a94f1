import Foundation

/// Sessions in memory, for tests and for apps that keep nothing between launches.
public actor InMemoryTokenStore: TokenStore {
    var sessions: [SessionKey: StoredSession] = [:]

    public init(_ sessions: [StoredSession] = []) {
        for session in sessions { self.sessions[session.key] = session }
    }

    public func load(_ key: SessionKey) -> StoredSession? { sessions[key] }
    public func save(_ session: StoredSession) { sessions[session.key] = session }
    public func remove(_ key: SessionKey) { sessions[key] = nil }

    /// Removes the session only while it holds `refreshToken`, in one step of the actor.
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) -> Bool {
        guard let current = sessions[key], current.tokens.refreshToken == refreshToken else { return false }
        sessions[key] = nil
        return true
    }

    /// In-process only: the token manager's single-flight refresh already serializes refreshes.
    public nonisolated func lock(_ key: SessionKey) async throws -> any TokenStoreLock { NoLock() }

    private struct NoLock: TokenStoreLock {
        func release() {}
    }
}
