#if MCP
import Foundation
import Logging
import MCP
import OAuthFlow

/// An MCP server (the MCP Swift SDK's `Server` over its HTTP server transport) behind `ProtectedResource`, as the
/// Model Context Protocol's authorization spec asks of a server: tokens whose audience is not this server are refused,
/// its protected-resource metadata (RFC 9728) says where to get one, every refusal carries the RFC 6750 challenge,
/// and a `tools/call` needs the scopes given for its tool.
///
/// ```swift
/// let api = try oauth.protectedResource(trusting: ["notes-idp"], settings: .mcpServer(at: URL(string: "https://mcp.example.com/mcp")!, scopesSupported: ["notes:read", "notes:write"]))
/// let mcp = try ProtectedMCPServer(api, configuration: .init(scopes: ["notes:read"], toolScopes: ["add_note": ["notes:write"]])) { principal in
///     let server = Server(name: "notes", version: "1.0.0", capabilities: .init(tools: .init()))
///     // register the tools …
///     return server
/// }
/// router.addMCPServer(mcp)   // OAuthFlowMCPHummingbird; `app.addMCPServer(mcp)` with OAuthFlowMCPVapor
/// ```
///
/// Framework adapters hand each request at ``endpointPath`` to ``handle(_:)`` and serve ``metadataDocument`` at
/// ``metadataPaths``.
public final class ProtectedMCPServer: Sendable {
    /// Makes the `Server` of a new session (or, stateless, of one request), its tools registered, for the user whose
    /// token opened it. The server is started and stopped by ``ProtectedMCPServer``.
    public typealias ServerFactory = @Sendable (ProtectedResource.Principal) async throws -> Server

    /// Checks every request's token.
    public let resource: ProtectedResource
    public let configuration: Configuration
    /// The MCP server's canonical URI: the resource, the tokens' audience.
    public let endpoint: URL
    /// The path the MCP endpoint is served at (`/mcp`; `/` for a server at the root).
    public let endpointPath: String
    /// Where the metadata document is served: the RFC 9728 path for the endpoint's path, then the root's when
    /// ``Configuration/servesRootMetadata`` and the server is at a path.
    public let metadataPaths: [String]
    /// The protected-resource metadata (RFC 9728): `resource` the canonical URI, `authorization_servers`,
    /// `scopes_supported`, `bearer_methods_supported: ["header"]`.
    public let metadataDocument: Data

    private let makeServer: ServerFactory
    private let sessions: MCPSessionTable
    private let hosts: [String]
    private let origins: [String]
    private let logger: Logger

    /// Puts the servers `makeServer` makes behind `resource`.
    ///
    /// - Parameters:
    ///   - resource: Checks the tokens. Its `settings.resource` and `settings.audience` must both be the MCP server's
    ///     canonical URI, as `ProtectedResource.Settings.mcpServer(at:scopesSupported:resourceName:)` makes them.
    ///   - configuration: The scopes required, per tool too, and how sessions are kept.
    ///   - makeServer: Makes the `Server` of a session, tools registered.
    /// - Throws: ``MCPServerConfigurationError`` for a resource that is not canonical, an audience other than it, a scope
    ///   that is not an RFC 6749 scope token, or limits that are not positive.
    public init(_ resource: ProtectedResource, configuration: Configuration = Configuration(), makeServer: @escaping ServerFactory) throws {
        let settings = resource.settings
        guard let canonical = Self.canonical(settings.resource), canonical.absoluteString == settings.resource.absoluteString else {
            throw MCPServerConfigurationError(
                "the resource \(settings.resource.absoluteString) is not an MCP server's canonical URI (scheme and host in lowercase, no default port, query, fragment or trailing slash)\(Self.canonical(settings.resource).map { ": write \($0.absoluteString)" } ?? "")"
            )
        }
        guard settings.audience == canonical.absoluteString else {
            throw MCPServerConfigurationError(
                "the audience must be the MCP server's URI, \(canonical.absoluteString), so that no token for another resource is accepted: make the settings with ProtectedResource.Settings.mcpServer(at:)"
            )
        }
        let scopes = configuration.scopes + configuration.toolScopes.values.flatMap { $0 }
        if let bad = scopes.first(where: { !Self.isScopeToken($0) }) {
            throw MCPServerConfigurationError(
                "`\(TerminalText.escaped(bad))` is not a scope (RFC 6749 §3.3: printable ASCII without space, `\"` or `\\`)")
        }
        guard configuration.maximumSessions > 0, configuration.maximumSessionsPerUser > 0, configuration.maximumBodySize > 0,
            configuration.sessionIdleTimeout > 0
        else {
            throw MCPServerConfigurationError("maximumSessions, maximumSessionsPerUser, maximumBodySize and sessionIdleTimeout must be positive")
        }
        self.resource = resource
        self.configuration = configuration
        self.makeServer = makeServer
        endpoint = canonical
        let path = URLComponents(url: canonical, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        endpointPath = path.isEmpty ? "/" : path
        let wellKnown = "/.well-known/oauth-protected-resource"
        metadataPaths = path.isEmpty ? [wellKnown] : [wellKnown + path] + (configuration.servesRootMetadata ? [wellKnown] : [])
        metadataDocument = resource.metadata.json()
        let host = canonical.host ?? ""
        let port = canonical.port ?? (canonical.scheme == "https" ? 443 : 80)
        hosts = configuration.allowedHosts ?? [host, "\(host):\(port)"]
        var origin = "\(canonical.scheme ?? "https")://\(host)"
        if canonical.port != nil { origin += ":\(port)" }
        origins = [origin] + configuration.allowedOrigins
        logger = configuration.logger
        sessions = MCPSessionTable(
            idleTimeout: configuration.sessionIdleTimeout, capacity: configuration.maximumSessions,
            capacityPerOwner: configuration.maximumSessionsPerUser, logger: logger)
    }

    // MARK: - Requests

    /// Answers one request to the MCP endpoint: a refusal of its token, or the SDK's answer.
    ///
    /// - Parameter request: The request, its body collected (at most ``Configuration/maximumBodySize`` bytes).
    /// - Returns: The answer to send; a ``Response/Body/stream(_:)`` is written as it comes.
    public func handle(_ request: Request) async -> Response {
        guard request.body.count <= configuration.maximumBodySize else {
            return Self.jsonRPCError(413, code: -32600, "the request body is larger than \(configuration.maximumBodySize) bytes")
        }
        let method = request.method.uppercased()
        let probe = method == "POST" ? JSONRPCProbe(request.body) : nil
        if probe?.isBatch == true {
            return Self.jsonRPCError(400, code: -32600, "JSON-RPC batches are not accepted (MCP 2025-06-18)")
        }
        let required = requiredScopes(tool: probe?.toolName)
        let access = resource.accessRequest(
            authorization: request.values("Authorization"), dpop: request.values("DPoP"), method: method, path: request.path)
        var checked = access
        checked.clientCertificate = request.clientCertificate
        let principal: ProtectedResource.Principal
        do {
            principal = try await resource.authenticate(checked, requiring: required)
        } catch {
            logger.debug("MCP request refused", metadata: ["code": "\(error.code)", "tool": "\(probe?.toolName ?? "-")"])
            return Self.answer(error, scopes: required)
        }
        let handle = AccessHandles.shared.add(Access(principal: principal, token: Self.token(of: request)))
        let forwarded = forwardedRequest(request, method: method, handle: handle)
        let answer: MCP.HTTPResponse
        switch configuration.sessions {
        case .stateless: answer = await handleStateless(forwarded, principal: principal)
        case .stateful: answer = await handleStateful(forwarded, probe: probe, principal: principal)
        }
        return Self.response(answer) { AccessHandles.shared.remove(handle) }
    }

    /// Closes every open session, stopping its server and ending its streams.
    public func closeSessions() async {
        await sessions.closeAll()
    }

    /// How many sessions are open.
    public var openSessions: Int {
        get async { await sessions.count }
    }

    /// The scopes a request requires: the configuration's, and those of the tool a `tools/call` names.
    func requiredScopes(tool: String?) -> [String] {
        var scopes = configuration.scopes
        for scope in tool.flatMap({ configuration.toolScopes[$0] }) ?? [] where !scopes.contains(scope) { scopes.append(scope) }
        return scopes
    }

    // MARK: - Stateless

    private func handleStateless(_ request: MCP.HTTPRequest, principal: ProtectedResource.Principal) async -> MCP.HTTPResponse {
        let transport = StatelessHTTPServerTransport(validationPipeline: pipeline(stateful: false), logger: logger)
        guard let server = await startedServer(for: principal, on: transport) else { return Self.couldNotStart }
        let answer = await transport.handleRequest(request)
        await server.stop()
        return answer
    }

    // MARK: - Stateful

    private func handleStateful(_ request: MCP.HTTPRequest, probe: JSONRPCProbe?, principal: ProtectedResource.Principal) async -> MCP.HTTPResponse {
        guard let owner = MCPSessionOwner(principal) else {
            return .error(
                statusCode: 403,
                .invalidRequest("Forbidden: the access token names no subject (`sub`), so no session can be bound to who holds it"))
        }
        let now = Date()
        if let id = request.header(HTTPHeaderName.sessionID) {
            guard let session = await sessions.session(id, owner: owner, now: now) else {
                return .error(statusCode: 404, .invalidRequest("Not Found: Session not found or expired"))
            }
            let answer = await session.transport.handleRequest(request)
            if request.method == "DELETE", answer.statusCode == 200 { await sessions.close(id, because: "the client ended it") }
            return answer
        }
        guard request.method == "POST", probe?.isInitialize == true else {
            return .error(statusCode: 400, .invalidRequest("Bad Request: Missing \(HTTPHeaderName.sessionID) header"))
        }
        let id = UUID().uuidString
        let transport = StatefulHTTPServerTransport(
            sessionIDGenerator: FixedSessionID(id: id), validationPipeline: pipeline(stateful: true), logger: logger)
        guard let server = await startedServer(for: principal, on: transport) else {
            await transport.disconnect()
            return Self.couldNotStart
        }
        await sessions.add(id, MCPSessionTable.Session(server: server, transport: transport, owner: owner, lastUsed: now), now: now)
        let answer = await transport.handleRequest(request)
        if case .error = answer { await sessions.close(id, because: "its initialize was refused") }
        return answer
    }

    /// The host's server for `principal`, started on `transport`; nil, logged, when it could not be made or started.
    private func startedServer(for principal: ProtectedResource.Principal, on transport: any Transport) async -> Server? {
        do {
            let server = try await makeServer(principal)
            try await server.start(transport: transport)
            return server
        } catch {
            logger.debug("MCP server could not start", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The answer when the host's server could not start.
    private static var couldNotStart: MCP.HTTPResponse { .error(statusCode: 500, .internalError("The MCP server could not start")) }

    /// The SDK's checks, with the resource's own host and origin allowed (the SDK's default allows only localhost).
    private func pipeline(stateful: Bool) -> any HTTPRequestValidationPipeline {
        var validators: [any HTTPRequestValidator] = [
            OriginValidator(allowedHosts: hosts, allowedOrigins: origins),
            AcceptHeaderValidator(mode: stateful ? .sseRequired : .jsonOnly),
            ContentTypeValidator(),
            ProtocolVersionValidator(),
        ]
        if stateful { validators.append(SessionValidator()) }
        return StandardValidationPipeline(validators: validators)
    }

    /// The request the SDK sees: without the token, its proof and any header claiming to be a handle, with the access's.
    private func forwardedRequest(_ request: Request, method: String, handle: String) -> MCP.HTTPRequest {
        let dropped = ["authorization", "dpop", AccessHandles.header.lowercased()]
        var headers: [String: String] = [:]
        for (name, value) in request.headers where !dropped.contains(name.lowercased()) {
            let key = headers.keys.first { $0.caseInsensitiveCompare(name) == .orderedSame } ?? name
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        headers[AccessHandles.header] = handle
        return MCP.HTTPRequest(method: method, headers: headers, body: request.body.isEmpty ? nil : request.body, path: request.path)
    }

    // MARK: - Answers

    /// A refusal: its status and headers; a 401's challenges also name the scopes the request needs (MCP authorization,
    /// "Protected Resource Metadata Discovery Requirements").
    static func answer(_ denial: ProtectedResource.Denial, scopes: [String]) -> Response {
        var headers: [(name: String, value: String)] = []
        for (name, value) in denial.headers {
            if name == "WWW-Authenticate", denial.status == 401, !scopes.isEmpty {
                headers.append((name, value + ", scope=\"\(scopes.joined(separator: " "))\""))
            } else {
                headers.append((name, value))
            }
        }
        headers.append(("Cache-Control", "no-store"))
        return Response(status: denial.status, headers: headers)
    }

    /// The SDK's answer as a ``Response``; `done` runs once the whole answer was handed over (a stream's end).
    static func response(_ answer: MCP.HTTPResponse, done: @escaping @Sendable () -> Void) -> Response {
        let headers = answer.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        guard case let .stream(stream, _) = answer else {
            done()
            return Response(status: answer.statusCode, headers: headers, body: .bytes(answer.bodyData ?? Data()))
        }
        let (relayed, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let relay = Task {
            do {
                for try await chunk in stream { continuation.yield(chunk) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            done()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return Response(status: answer.statusCode, headers: headers, body: .stream(relayed))
    }

    static func jsonRPCError(_ status: Int, code: Int, _ message: String) -> Response {
        let body: [String: Any] = ["jsonrpc": "2.0", "id": NSNull(), "error": ["code": code, "message": message]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return Response(status: status, headers: [("Content-Type", "application/json")], body: .bytes(data))
    }

    /// The token of the request's one `Authorization` header (already accepted: `Bearer` or `DPoP`, a space, the token).
    private static func token(of request: Request) -> Secret {
        let header = request.values("Authorization").first ?? ""
        let token = header.split(separator: " ", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return Secret(token)
    }

    // MARK: - Checks

    /// `url` as an MCP client writes a server's canonical URI; nil without an http(s) scheme and host, or with a query.
    static func canonical(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host?.lowercased(), !host.isEmpty, components.user == nil,
            components.password == nil, components.query == nil
        else { return nil }
        components.scheme = scheme
        components.host = host
        if components.port == (scheme == "https" ? 443 : 80) { components.port = nil }
        components.fragment = nil
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path
        return components.url
    }

    /// RFC 6749 §3.3 scope-token: `%x21 / %x23-5B / %x5D-7E`, at least one.
    static func isScopeToken(_ scope: String) -> Bool {
        !scope.isEmpty && scope.unicodeScalars.allSatisfy { $0.value >= 0x21 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" }
    }
}

/// Gives the SDK's stateful transport the session id chosen before it was made, so the table knows it.
private struct FixedSessionID: SessionIDGenerator {
    let id: String
    func generateSessionID() -> String { id }
}
#endif
