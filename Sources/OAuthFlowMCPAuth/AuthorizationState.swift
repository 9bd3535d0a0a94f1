#if NIO
import Foundation
import OAuthFlow

/// What an ``MCPAuthorization`` knows of each MCP server, and the work it does once however many requests ask: discovery
/// and registration, and sign-ins.
actor AuthorizationState {
    /// An MCP server, as far as discovery and registration went.
    struct Context: Sendable {
        let server: ResourceIdentifier
        /// The `resource` sent (RFC 8707): the protected-resource metadata's, as written.
        let resource: URL
        let protectedResource: ServerDiscovery.ProtectedResourceDocument
        let authorizationServer: ServerDiscovery.AuthorizationServerDocument
        let provider: Provider
        /// Whether the provider is a pinned descriptor's rather than drafted from the metadata.
        let pinned: Bool
        /// The client, with the resource set.
        let settings: ClientSettings
        let key: SessionKey
        let manager: TokenManager
        /// How its tokens are had: a user's sign-in, or an assertion presented (MCPAuthorization+WorkloadIdentity.swift).
        var grant: Grant = .authorizationCode
        /// Whether the client is one registered dynamically (kept in `registrations`): the only kind dropped and
        /// registered again when the server forgets it.
        var registered = false
    }

    private var contexts: [ResourceIdentifier: Context] = [:]
    private var discovering: [ResourceIdentifier: Task<Context, any Error>] = [:]
    private var signingIn: [ResourceIdentifier: Task<StoredSession, any Error>] = [:]
    /// Access tokens just issued, with when: a 401 in answer to one is not answered with another sign-in.
    private var fresh: [String: Date] = [:]
    /// Step-ups done, by operation, server and the scopes asked for.
    private var stepUps: Set<String> = []
    /// How many step-ups each operation at each server has had, whatever scopes they asked for.
    private var stepUpCounts: [String: Int] = [:]

    /// The most step-ups one operation at one server gets: a server that names a new scope at every 403 is not
    /// answered with a browser sign-in each time.
    /// How long a token counts as just issued.
    static let freshness: TimeInterval = 30

    func context(for server: ResourceIdentifier) -> Context? { contexts[server] }

    /// The context of `server`, made by `make` once however many callers ask at the same time; `replacing` drops the
    /// one known first (its metadata moved).
    func context(
        for server: ResourceIdentifier, replacing: Bool, make: @escaping @Sendable () async throws -> Context
    ) async throws -> Context {
        if !replacing, let known = contexts[server] { return known }
        let task: Task<Context, any Error>
        if let running = discovering[server] {
            task = running
        } else {
            task = Task { try await make() }
            discovering[server] = task
        }
        defer { discovering[server] = nil }
        let made = try await task.value
        contexts[server] = made
        return made
    }

    /// A sign-in for `server`, run once however many callers ask at the same time.
    func signIn(_ server: ResourceIdentifier, run: @escaping @Sendable () async throws -> StoredSession) async throws -> StoredSession {
        if let running = signingIn[server] { return try await running.value }
        let task = Task { try await run() }
        signingIn[server] = task
        defer { signingIn[server] = nil }
        return try await task.value
    }

    /// The scopes last asked for at each server: a step-up asks for them and those demanded (MCP authorization,
    /// "Step-Up Authorization Flow": the union of the previously requested scopes and the challenge's).
    private var requested: [ResourceIdentifier: [String]] = [:]

    func noteRequested(_ scopes: [String], for server: ResourceIdentifier) { requested[server] = scopes }

    func requestedScopes(for server: ResourceIdentifier) -> [String] { requested[server] ?? [] }

    func noteFresh(_ token: String, at now: Date) {
        fresh = fresh.filter { now.timeIntervalSince($0.value) < Self.freshness }
        fresh[token] = now
    }

    func isFresh(_ token: String, at now: Date) -> Bool {
        fresh[token].map { now.timeIntervalSince($0) < Self.freshness } ?? false
    }

    /// Records a step-up of `operation` (operation and server) for `scopes`; false when the same one was done before,
    /// or the operation has had `bound` already (``MCPAuthorization/Configuration/maximumStepUps``).
    func recordStepUp(_ operation: String, scopes: String, bound: Int) -> Bool {
        guard stepUpCounts[operation, default: 0] < bound, stepUps.insert(operation + "|" + scopes).inserted else { return false }
        stepUpCounts[operation, default: 0] += 1
        return true
    }
}
#endif
