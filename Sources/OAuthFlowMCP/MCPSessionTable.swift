#if MCP
import Foundation
import Logging
import MCP
import OAuthFlow

/// The open sessions of a stateful protected MCP server: each with its `Server`, its SDK transport, the user whose
/// token opened it, and when it was last used.
actor MCPSessionTable {
    struct Session {
        let server: Server
        let transport: StatefulHTTPServerTransport
        let owner: MCPSessionOwner
        var lastUsed: Date
    }

    private var sessions: [String: Session] = [:]
    private let idleTimeout: TimeInterval
    private let capacity: Int
    private let capacityPerOwner: Int
    private let logger: Logger

    init(idleTimeout: TimeInterval, capacity: Int, capacityPerOwner: Int, logger: Logger) {
        self.idleTimeout = idleTimeout
        self.capacity = max(1, capacity)
        self.capacityPerOwner = max(1, capacityPerOwner)
        self.logger = logger
    }

    /// The session `id` when `owner` opened it, marked as used now; nil for an unknown, expired or another user's session.
    func session(_ id: String, owner: MCPSessionOwner, now: Date) async -> Session? {
        guard var session = sessions[id] else { return nil }
        if now.timeIntervalSince(session.lastUsed) > idleTimeout {
            await close(id, because: "idle")
            return nil
        }
        guard session.owner == owner else { return nil }
        session.lastUsed = now
        sessions[id] = session
        return session
    }

    /// Keeps a new session, after closing the idle ones, the owner's own unused the longest when the owner has the most
    /// sessions one user may keep, and, when the table is full, the one unused the longest.
    func add(_ id: String, _ session: Session, now: Date) async {
        for (other, kept) in sessions where now.timeIntervalSince(kept.lastUsed) > idleTimeout {
            await close(other, because: "idle")
        }
        var owned = sessions.filter { $0.value.owner == session.owner }
        while owned.count >= capacityPerOwner, let oldest = owned.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            owned.removeValue(forKey: oldest)
            await close(oldest, because: "its user has the most sessions one user may keep")
        }
        while sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            await close(oldest, because: "the most sessions are open")
        }
        sessions[id] = session
    }

    /// Forgets the session `id` and stops its server (which closes its transport and streams).
    func close(_ id: String, because reason: String) async {
        guard let session = sessions.removeValue(forKey: id) else { return }
        logger.debug("MCP session closed", metadata: ["reason": "\(reason)"])
        await session.server.stop()
    }

    /// Closes every session.
    func closeAll() async {
        for id in Array(sessions.keys) { await close(id, because: "the server is closing") }
    }

    var count: Int { sessions.count }
}
#endif
