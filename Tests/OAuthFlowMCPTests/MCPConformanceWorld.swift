import Crypto
import Foundation
import OAuthFlow
import OAuthFlowLoopback

import OAuthFlowMCPAuth

/// The MCP conformance suite's client scenarios (`modelcontextprotocol/conformance`, `src/scenarios/client/auth/`, commit
/// `c321dd3`), played in process: each scenario's servers are reproduced here as its TypeScript builds them
/// (`helpers/createServer.ts`, `helpers/createAuthServer.ts`, the scenario's own middleware and hooks), behind one
/// transport, and record the checks the scenario records. An ``MCPAuthorization`` plays the suite's client
/// (`examples/clients/typescript/everything-client.ts`): connect, `tools/list`, `tools/call` of `test-tool`.
///
/// The servers live at `http://localhost:<port>` origins, as the suite's do (no trailing slash); nothing listens there: the
/// transport routes by origin. Only the loopback redirect is real HTTP.

/// What a check says (`src/types.ts`).
enum ConformanceStatus: String, Sendable {
    case success = "SUCCESS", failure = "FAILURE", warning = "WARNING", info = "INFO", skipped = "SKIPPED"
}

/// One check a scenario records.
struct ConformanceCheck: Sendable, CustomStringConvertible {
    let id: String
    let status: ConformanceStatus
    let detail: String

    var description: String { "\(id): \(status.rawValue)\(detail.isEmpty ? "" : " (\(detail))")" }
}

/// The wire of a run: the stateful versions (an `initialize` handshake) or the stateless 2026-07-28 one (`server/discover`
/// and `_meta` on every request, SEP-2575).
enum ConformanceSpecVersion: String, Sendable, CustomStringConvertible {
    case v20251125 = "2025-11-25"
    case v20260728 = "2026-07-28"

    var isStateless: Bool { self == .v20260728 }
    var description: String { rawValue }
}

/// One run of a scenario: its servers, the tokens their verifier knows, and the checks recorded.
final class ConformanceRun: @unchecked Sendable {
    let version: ConformanceSpecVersion
    private let lock = NSLock()
    private var recorded: [ConformanceCheck] = []
    private var servers: [String: @Sendable (TransportRequest) async throws -> TransportResponse?] = [:]
    private var tokenScopes: [String: [String]] = [:]
    private var lastMillisecond: Int64 = 0
    /// Every request sent, in order.
    let requests = Log<TransportRequest>()

    init(version: ConformanceSpecVersion) {
        self.version = version
    }

    var checks: [ConformanceCheck] { lock.withLock { recorded } }

    func record(_ id: String, _ status: ConformanceStatus, _ detail: String = "") {
        lock.withLock { recorded.append(ConformanceCheck(id: id, status: status, detail: detail)) }
    }

    /// The checks with `id`.
    func checks(_ id: String) -> [ConformanceCheck] { checks.filter { $0.id == id } }

    /// Serves `origin` (`http://localhost:<port>`) with `handler`; a nil answer is Express's 404.
    func serve(_ origin: String, _ handler: @escaping @Sendable (TransportRequest) async throws -> TransportResponse?) {
        lock.withLock { servers[origin] = handler }
    }

    /// `Date.now()` in milliseconds, never twice the same (the suite's tokens are `test-token-<ms>`).
    func milliseconds() -> Int64 {
        lock.withLock {
            lastMillisecond = max(lastMillisecond + 1, Int64(Date().timeIntervalSince1970 * 1000))
            return lastMillisecond
        }
    }

    // MARK: - The shared verifier (helpers/mockTokenVerifier.ts)

    /// Registers the scopes of a token the authorization server issued.
    func registerToken(_ token: String, scopes: [String]) {
        lock.withLock { tokenScopes[token] = scopes }
    }

    /// `MockTokenVerifier.verifyAccessToken`: any token starting `test-token` or `cc-token` is valid, with the scopes
    /// registered for it (none when unknown); anything else is recorded as a failure and refused.
    func verify(_ token: String) -> [String]? {
        guard token.hasPrefix("test-token") || token.hasPrefix("cc-token") else {
            record("invalid-bearer-token", .failure, "token \(token.prefix(15))")
            return nil
        }
        let scopes = lock.withLock { tokenScopes[token] } ?? []
        record("valid-bearer-token", .success, "token \(token.prefix(15)), scopes \(scopes.joined(separator: " "))")
        return scopes
    }

    // MARK: - Transport

    var transport: any HTTPTransport { ConformanceTransport(run: self) }

    func answer(_ request: TransportRequest) async throws -> TransportResponse {
        requests.add(request)
        guard let origin = Self.origin(of: request.url) else {
            throw TransportError(.unreachable, url: request.url, message: "no origin")
        }
        let handler = lock.withLock { servers[origin] }
        guard let handler else { throw TransportError(.unreachable, url: request.url, message: "nothing listens there in this scenario") }
        return try await handler(request) ?? Self.notFound(request)
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    // MARK: - Express

    /// Express's answer to a route nobody defined: 404 and its HTML page.
    static func notFound(_ request: TransportRequest) -> TransportResponse {
        let page =
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot \(request.method.rawValue) \(request.url.path)</pre>\n</body>\n</html>\n"
        return TransportResponse(status: 404, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(page.utf8))
    }

    /// `res.json(...)`.
    static func json(_ members: [String: JSONValue], status: Int = 200, headers: [String: String] = [:]) -> TransportResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var all = headers
        all["Content-Type"] = "application/json; charset=utf-8"
        return TransportResponse(status: status, headers: all, body: (try? encoder.encode(JSONValue.object(members))) ?? Data())
    }

    /// `res.redirect(url)`.
    static func redirect(_ location: String) -> TransportResponse {
        TransportResponse(status: 302, headers: ["Location": location])
    }

    /// A request header, whatever the case of its name.
    static func header(_ request: TransportRequest, _ name: String) -> String? {
        request.headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The body as Express's `urlencoded` or `json` parser reads it, values as strings.
    static func form(_ request: TransportRequest) -> [String: String] {
        let body = request.body ?? Data()
        if header(request, "Content-Type")?.lowercased().hasPrefix("application/json") == true {
            guard case let .object(members)? = try? JSONDecoder().decode(JSONValue.self, from: body) else { return [:] }
            return members.compactMapValues(\.stringValue)
        }
        var fields: [String: String] = [:]
        for (name, value) in FormEncoding.decode(String(decoding: body, as: UTF8.self)) where fields[name] == nil { fields[name] = value }
        return fields
    }

    static func query(_ url: URL) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] where fields[item.name] == nil {
            fields[item.name] = item.value ?? ""
        }
        return fields
    }

    /// The body's JSON object, if it is one.
    static func jsonBody(_ request: TransportRequest) -> [String: JSONValue]? {
        guard case let .object(members)? = try? JSONDecoder().decode(JSONValue.self, from: request.body ?? Data()) else { return nil }
        return members
    }

    /// base64url(SHA-256(text)), no padding: the PKCE S256 challenge of a verifier, and a DPoP `ath`.
    static func s256(_ text: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(text.utf8))))
    }
}

struct ConformanceTransport: HTTPTransport {
    let run: ConformanceRun
    func send(_ request: TransportRequest) async throws -> TransportResponse { try await run.answer(request) }
}

// MARK: - The mock authorization server (helpers/createAuthServer.ts)

/// What `createAuthServer` is given.
struct MockAuthServerOptions: Sendable {
    enum IssInRedirect: Sendable { case correct, wrong, omit, normalized }
    enum DPoPPosture: Sendable { case none, proofs, proofsAndNonce }

    var metadataPath = "/.well-known/oauth-authorization-server"
    var isOpenIDConfiguration = false
    var routePrefix = ""
    var grantTypesSupported = ["authorization_code", "refresh_token"]
    var tokenEndpointAuthMethodsSupported = ["none"]
    var issParameterSupported: Bool? = true
    var issInRedirect = IssInRedirect.correct
    var metadataIssuer: String?
    var disableDynamicRegistration = false
    var clientIDMetadataDocumentSupported: Bool?
    var scopesSupported: [String]?
    var tokenEndpointAuthSigningAlgValuesSupported: [String]?
    var dpop = DPoPPosture.none
    /// Whether the metadata names an authorization endpoint, the `code` response type and PKCE S256: false for a server
    /// that serves only machine grants (client credentials, the JWT bearer grant).
    var servesAuthorizationCode = true
    /// `onAuthorizationRequest`: the query.
    var onAuthorizationRequest: (@Sendable ([String: String]) -> Void)?
    /// `onTokenRequest`: the body and the `Authorization` header; nil keeps the default answer.
    var onTokenRequest: (@Sendable (_ body: [String: String], _ authorization: String?) -> MockTokenAnswer?)?
    /// `onRegistrationRequest`: the body; what the registration answer says instead of the defaults.
    var onRegistrationRequest: (@Sendable ([String: JSONValue]) -> MockRegistration)?
    /// Routes tried before the others (the scenarios' traps), nil when not theirs.
    var extraRoutes: (@Sendable (TransportRequest) -> TransportResponse?)?
    /// An `error` and `error_description` the authorization endpoint redirects with instead of a code (not a suite option:
    /// the RFC 9207 table applied to error responses).
    var errorRedirect: (error: String, description: String)?
}

/// What a token hook answers.
enum MockTokenAnswer: Sendable {
    /// `{ token, scopes }`: a Bearer token, registered with the verifier.
    case token(String, scopes: [String])
    /// `{ error, errorDescription, statusCode }`.
    case error(String, String, status: Int = 400)
}

/// What a registration hook answers.
struct MockRegistration: Sendable {
    var clientID = "test-client-id"
    var clientSecret: String? = "test-client-secret"
    var tokenEndpointAuthMethod: String?
}

final class MockAuthServer: @unchecked Sendable {
    let run: ConformanceRun
    let origin: String
    let options: MockAuthServerOptions
    private let lock = NSLock()
    private var lastChallenge: String?
    private var lastScopes: [String] = []
    /// The DPoP observations of `authorization_code` requests (`validateDpopProofAtTokenEndpoint`).
    private(set) var dpop = MockDPoPObservations()
    /// The key DPoP access tokens are signed with.
    let signingKey = P256.Signing.PrivateKey()

    /// - Parameter serving: Whether it serves `origin` itself; false for one mounted on another server's routes (`handle`).
    init(run: ConformanceRun, origin: String, options: MockAuthServerOptions = MockAuthServerOptions(), serving: Bool = true) {
        self.run = run
        self.origin = origin
        self.options = options
        if serving { run.serve(origin) { [self] in handle($0) } }
    }

    var issuer: String { options.metadataIssuer ?? origin + options.routePrefix }
    var tokenEndpoint: String { origin + options.routePrefix + "/token" }

    func observations() -> MockDPoPObservations { lock.withLock { dpop } }

    /// Its routes; nil for one it does not have.
    func handle(_ request: TransportRequest) -> TransportResponse? {
        if let extra = options.extraRoutes, let answer = extra(request) { return answer }
        let path = request.url.path
        let prefix = options.routePrefix
        switch (request.method, path) {
        case (.get, options.metadataPath): return metadata(request)
        case (.get, prefix + "/authorize"): return authorize(request)
        case (.post, prefix + "/token"): return token(request)
        case (.post, prefix + "/register") where !options.disableDynamicRegistration: return register(request)
        default: return nil
        }
    }

    private func metadata(_ request: TransportRequest) -> TransportResponse {
        run.record("authorization-server-metadata", .success, request.url.absoluteString)
        let base = origin + options.routePrefix
        var members: [String: JSONValue] = [
            "issuer": .string(issuer), "token_endpoint": .string(base + "/token"),
            "grant_types_supported": .array(options.grantTypesSupported.map(JSONValue.string)),
            "token_endpoint_auth_methods_supported": .array(options.tokenEndpointAuthMethodsSupported.map(JSONValue.string)),
        ]
        if options.servesAuthorizationCode {
            members["authorization_endpoint"] = .string(base + "/authorize")
            members["response_types_supported"] = .array([.string("code")])
            members["code_challenge_methods_supported"] = .array([.string("S256")])
        }
        if !options.disableDynamicRegistration { members["registration_endpoint"] = .string(base + "/register") }
        if let supported = options.issParameterSupported { members["authorization_response_iss_parameter_supported"] = .bool(supported) }
        if let algorithms = options.tokenEndpointAuthSigningAlgValuesSupported {
            members["token_endpoint_auth_signing_alg_values_supported"] = .array(algorithms.map(JSONValue.string))
        }
        if options.dpop != .none { members["dpop_signing_alg_values_supported"] = .array([.string("ES256")]) }
        if let scopes = options.scopesSupported { members["scopes_supported"] = .array(scopes.map(JSONValue.string)) }
        if let cimd = options.clientIDMetadataDocumentSupported { members["client_id_metadata_document_supported"] = .bool(cimd) }
        if options.isOpenIDConfiguration {
            members["jwks_uri"] = .string(origin + "/.well-known/jwks.json")
            members["subject_types_supported"] = .array([.string("public")])
            members["id_token_signing_alg_values_supported"] = .array([.string("RS256")])
        }
        return ConformanceRun.json(members)
    }

    private func authorize(_ request: TransportRequest) -> TransportResponse {
        let query = ConformanceRun.query(request.url)
        run.record("authorization-request", .success, request.url.query ?? "")
        run.record("pkce-code-challenge-sent", query["code_challenge"] != nil ? .success : .failure)
        run.record(
            "pkce-s256-method-used", query["code_challenge_method"] == "S256" ? .success : .failure, query["code_challenge_method"] ?? "not specified"
        )
        lock.withLock {
            lastChallenge = query["code_challenge"]
            lastScopes = (query["scope"] ?? "").split(separator: " ").map(String.init)
        }
        options.onAuthorizationRequest?(query)
        guard let redirect = query["redirect_uri"], var location = URLComponents(string: redirect) else {
            return TransportResponse(status: 500, body: Data("Internal Server Error".utf8))
        }
        var items = location.queryItems ?? []
        if let (error, description) = options.errorRedirect {
            items.append(URLQueryItem(name: "error", value: error))
            items.append(URLQueryItem(name: "error_description", value: description))
        } else {
            items.append(URLQueryItem(name: "code", value: "test-auth-code"))
        }
        if let state = query["state"] { items.append(URLQueryItem(name: "state", value: state)) }
        switch options.issInRedirect {
        case .correct: items.append(URLQueryItem(name: "iss", value: issuer))
        case .wrong: items.append(URLQueryItem(name: "iss", value: "https://evil.example.com"))
        case .normalized: items.append(URLQueryItem(name: "iss", value: issuer + "/"))
        case .omit: break
        }
        location.queryItems = items
        return ConformanceRun.redirect(location.url?.absoluteString ?? redirect)
    }

    private func token(_ request: TransportRequest) -> TransportResponse {
        let body = ConformanceRun.form(request)
        let grant = body["grant_type"] ?? ""
        run.record("token-request", .success, grant)
        if grant == "authorization_code" {
            let verifier = body["code_verifier"]
            run.record("pkce-code-verifier-sent", verifier != nil ? .success : .failure)
            let challenge = lock.withLock { lastChallenge }
            if let verifier, let challenge, ConformanceRun.s256(verifier) == challenge {
                run.record("pkce-verifier-matches-challenge", .success)
            } else {
                run.record(
                    "pkce-verifier-matches-challenge", .failure,
                    verifier == nil ? "no code_verifier" : challenge == nil ? "no code_challenge was sent" : "the verifier does not match")
            }
        }
        if options.dpop != .none, let answer = dpopToken(request, body: body, grant: grant) { return answer }
        if let hook = options.onTokenRequest, let answer = hook(body, ConformanceRun.header(request, "Authorization")) {
            switch answer {
            case let .error(error, description, status):
                return ConformanceRun.json(["error": .string(error), "error_description": .string(description)], status: status)
            case let .token(token, scopes):
                return bearer(token, scopes: scopes)
            }
        }
        let scopes = lock.withLock { lastScopes }
        return bearer("test-token-\(run.milliseconds())", scopes: scopes)
    }

    private func bearer(_ token: String, scopes: [String]) -> TransportResponse {
        run.registerToken(token, scopes: scopes)
        var members: [String: JSONValue] = ["access_token": .string(token), "token_type": .string("Bearer"), "expires_in": .number(3600)]
        if !scopes.isEmpty { members["scope"] = .string(scopes.joined(separator: " ")) }
        return ConformanceRun.json(members)
    }

    private func register(_ request: TransportRequest) -> TransportResponse {
        let body = ConformanceRun.jsonBody(request) ?? [:]
        let registration = options.onRegistrationRequest?(body) ?? MockRegistration()
        run.record("client-registration", .success, body["client_name"]?.stringValue ?? "")
        if run.version.isStateless {
            let type = body["application_type"]?.stringValue
            run.record(
                "sep-837-application-type-present", type == "native" || type == "web" ? .success : .failure, "application_type \(type ?? "absent")")
        }
        var members: [String: JSONValue] = [
            "client_id": .string(registration.clientID), "client_name": body["client_name"] ?? .string("test-client"),
            "redirect_uris": body["redirect_uris"] ?? .array([]),
        ]
        if let secret = registration.clientSecret { members["client_secret"] = .string(secret) }
        if let method = registration.tokenEndpointAuthMethod { members["token_endpoint_auth_method"] = .string(method) }
        return ConformanceRun.json(members, status: 201)
    }

    // MARK: DPoP at the token endpoint (helpers/dpop.ts, validateDpopProofAtTokenEndpoint)

    static let nonce = "conformance-as-dpop-nonce"

    /// The DPoP path: nil falls through to the Bearer token (no proof), else the DPoP answer or its refusal.
    private func dpopToken(_ request: TransportRequest, body: [String: String], grant: String) -> TransportResponse? {
        let counts = grant == "authorization_code"
        guard let header = ConformanceRun.header(request, "DPoP") else {
            if counts { lock.withLock { dpop.note(valid: false, reason: "no DPoP proof in the token request") } }
            return nil
        }
        if header.contains(",") {
            if counts { lock.withLock { dpop.note(valid: false, reason: "Multiple DPoP proof headers") } }
            return ConformanceRun.json(
                ["error": .string("invalid_dpop_proof"), "error_description": .string("Multiple DPoP proof headers")], status: 400)
        }
        let proof: MockDPoPProof
        do {
            proof = try MockDPoPProof.verify(header, method: "POST", target: tokenEndpoint, accessToken: nil)
        } catch {
            if counts { lock.withLock { dpop.note(valid: false, reason: "\(error)") } }
            return ConformanceRun.json(["error": .string("invalid_dpop_proof"), "error_description": .string("\(error)")], status: 400)
        }
        if counts { lock.withLock { dpop.note(valid: true, reason: nil) } }
        if options.dpop == .proofsAndNonce, proof.nonce != Self.nonce {
            if counts { lock.withLock { dpop.nonceChallenged = true } }
            return ConformanceRun.json(
                ["error": .string("use_dpop_nonce"), "error_description": .string("Authorization server requires a DPoP nonce")], status: 400,
                headers: ["DPoP-Nonce": Self.nonce])
        }
        if counts, options.dpop == .proofsAndNonce, lock.withLock({ dpop.nonceChallenged }) { lock.withLock { dpop.nonceHonoured = true } }
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(body["resource"] ?? "urn:conformance-test-resource"), "sub": .string("conformance-test-subject"),
            "iat": .number(Double(now)), "exp": .number(Double(now + 3600)), "cnf": .object(["jkt": .string(proof.thumbprint)]),
        ]
        if let scope = body["scope"] { claims["scope"] = .string(scope) }
        let token = MockJWT.sign(header: ["alg": .string("ES256"), "typ": .string("at+jwt")], claims: claims, key: signingKey)
        var members: [String: JSONValue] = ["access_token": .string(token), "token_type": .string("DPoP"), "expires_in": .number(3600)]
        if let scope = body["scope"] { members["scope"] = .string(scope) }
        return ConformanceRun.json(members)
    }
}

/// What the DPoP scenarios observe at the token endpoint: sticky, a failure is never overwritten.
struct MockDPoPObservations: Sendable {
    var requests = 0
    var allValid = true
    var firstFailure: String?
    var nonceChallenged = false
    var nonceHonoured = false

    mutating func note(valid: Bool, reason: String?) {
        requests += 1
        if !valid, allValid {
            allValid = false
            firstFailure = reason
        }
    }
}

// MARK: - The mock MCP server (helpers/createServer.ts)

struct MockMCPServerOptions: Sendable {
    /// Where the protected-resource metadata is; nil serves none.
    var prmPath: String? = "/.well-known/oauth-protected-resource/mcp"
    var requiredScopes: [String] = []
    var scopesSupported: [String]?
    var includePrmInWwwAuth = true
    var includeScopeInWwwAuth = false
    var prmResourceOverride: String?
    /// Replaces the bearer middleware: an answer ends the request there, nil lets it through to MCP.
    var authMiddleware: (@Sendable (TransportRequest, _ method: String?) -> TransportResponse?)?
    /// Routes tried before the others (the scenarios' traps), nil when not theirs.
    var extraRoutes: (@Sendable (TransportRequest) -> TransportResponse?)?
    /// The revisions the server speaks, when it checks each POST's revision before its authorization (as a server
    /// that routes on the headers does): a POST that names another in `MCP-Protocol-Version` is refused with 400
    /// (`-32022`, these listed as `supported`), and at 2026-07-28 one without the revision's headers or `_meta` too
    /// (`-32020`). Nil checks the authorization first.
    var checksRevisionFirst: [String]?
}

final class MockMCPServer: @unchecked Sendable {
    let run: ConformanceRun
    let origin: String
    let options: MockMCPServerOptions
    private let authorizationServers: @Sendable () -> [String]

    init(
        run: ConformanceRun, origin: String, options: MockMCPServerOptions = MockMCPServerOptions(),
        authorizationServers: @escaping @Sendable () -> [String]
    ) {
        self.run = run
        self.origin = origin
        self.options = options
        self.authorizationServers = authorizationServers
        run.serve(origin) { [self] in try await answer($0) }
    }

    var endpoint: URL { URL(string: origin + "/mcp")! }
    /// The URL of the protected-resource metadata, when there is one.
    var prmURL: String? { options.prmPath.map { origin + $0 } }

    private func answer(_ request: TransportRequest) async throws -> TransportResponse? {
        if let extra = options.extraRoutes, let answer = extra(request) { return answer }
        switch (request.method, request.url.path) {
        case (.get, options.prmPath ?? "\u{0}"): return protectedResourceMetadata(request)
        case (.post, "/mcp"):
            let body = ConformanceRun.jsonBody(request)
            let method = body?["method"]?.stringValue
            if let supported = options.checksRevisionFirst, let refusal = Self.revisionRefusal(request, body: body, supported: supported) {
                run.record("revision-refused", .info, method ?? "")
                return refusal
            }
            let middleware = options.authMiddleware ?? { [self] request, _ in bearerAuth(request) }
            if let refusal = middleware(request, method) { return refusal }
            return MockMCPLayer.answer(request, version: run.version)
        default: return nil
        }
    }

    /// The 400 a server that checks the revision first answers `request` with; nil when it passes.
    static func revisionRefusal(_ request: TransportRequest, body: [String: JSONValue]?, supported: [String]) -> TransportResponse? {
        let id = body?["id"]
        let method = body?["method"]?.stringValue
        let stated = ConformanceRun.header(request, "MCP-Protocol-Version")
        let unsupported = MockMCPLayer.rpcError(
            id, -32022, "Unsupported protocol version", status: 400,
            data: .object(["supported": .array(supported.map(JSONValue.string)), "requested": .string(stated ?? "")]))
        if let stated, !supported.contains(stated) { return unsupported }
        guard supported.contains("2026-07-28") else {
            // The revisions before it: `initialize` carries the version in its body, the rest in the header.
            if method == "initialize" {
                let asked = body?["params"]?.objectValue?["protocolVersion"]?.stringValue ?? ""
                return supported.contains(asked) ? nil : unsupported
            }
            return stated == nil ? MockMCPLayer.rpcError(id, -32000, "Bad Request: Missing MCP-Protocol-Version header", status: 400) : nil
        }
        guard stated == "2026-07-28" else { return MockMCPLayer.rpcError(id, -32020, "Missing MCP-Protocol-Version header", status: 400) }
        guard let method, ConformanceRun.header(request, "Mcp-Method") == method else {
            return MockMCPLayer.rpcError(id, -32020, "Mcp-Method header missing or not the body's method", status: 400)
        }
        let meta = body?["params"]?.objectValue?["_meta"]?.objectValue ?? [:]
        guard meta["io.modelcontextprotocol/protocolVersion"]?.stringValue == stated, meta["io.modelcontextprotocol/clientCapabilities"] != nil
        else { return MockMCPLayer.rpcError(id, -32602, "Missing _meta protocol version or client capabilities", status: 400) }
        return nil
    }

    private func protectedResourceMetadata(_ request: TransportRequest) -> TransportResponse {
        run.record("prm-pathbased-requested", .success, request.url.absoluteString)
        let resource = options.prmResourceOverride ?? (options.prmPath == "/.well-known/oauth-protected-resource" ? origin : origin + "/mcp")
        var members: [String: JSONValue] = [
            "resource": .string(resource), "authorization_servers": .array(authorizationServers().map(JSONValue.string)),
        ]
        if let scopes = options.scopesSupported { members["scopes_supported"] = .array(scopes.map(JSONValue.string)) }
        return ConformanceRun.json(members)
    }

    /// The TypeScript SDK's `requireBearerAuth` (v1.29.0) with a `MockTokenVerifier`.
    private func bearerAuth(_ request: TransportRequest) -> TransportResponse? {
        let scopes = options.includeScopeInWwwAuth ? options.requiredScopes : []
        let metadata = options.includePrmInWwwAuth ? prmURL : nil
        func refuse(_ status: Int, _ error: String, _ description: String) -> TransportResponse {
            var challenge = "Bearer error=\"\(error)\", error_description=\"\(description)\""
            if !scopes.isEmpty { challenge += ", scope=\"\(scopes.joined(separator: " "))\"" }
            if let metadata { challenge += ", resource_metadata=\"\(metadata)\"" }
            return ConformanceRun.json(
                ["error": .string(error), "error_description": .string(description)], status: status, headers: ["WWW-Authenticate": challenge])
        }
        guard let header = ConformanceRun.header(request, "Authorization") else {
            return refuse(401, "invalid_token", "Missing Authorization header")
        }
        let parts = header.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            return refuse(401, "invalid_token", "Invalid Authorization header format, expected 'Bearer TOKEN'")
        }
        guard let granted = run.verify(String(parts[1])) else { return refuse(401, "invalid_token", "Invalid token") }
        if !scopes.allSatisfy(granted.contains) { return refuse(403, "insufficient_scope", "Insufficient scope") }
        return nil
    }
}

/// The MCP layer behind the middleware: a fresh TypeScript SDK server per request at the stateful versions
/// (answers as Server-Sent Events), `validateStatelessRequest` and its answers at the stateless one.
enum MockMCPLayer {
    static func answer(_ request: TransportRequest, version: ConformanceSpecVersion) -> TransportResponse {
        guard let body = ConformanceRun.jsonBody(request) else { return rpcError(nil, -32700, "Parse error", status: 400) }
        let id = body["id"]
        let method = body["method"]?.stringValue ?? ""
        let params = body["params"]?.objectValue ?? [:]
        if version.isStateless { return stateless(request, id: id, method: method, params: params, version: version) }
        let accept = ConformanceRun.header(request, "Accept") ?? ""
        guard accept.contains("application/json"), accept.contains("text/event-stream") else {
            return rpcError(nil, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream", status: 406)
        }
        if id == nil { return TransportResponse(status: 202) }
        switch method {
        case "initialize":
            return events(
                id,
                .object([
                    "protocolVersion": params["protocolVersion"] ?? .string(version.rawValue), "capabilities": .object(["tools": .object([:])]),
                    "serverInfo": .object(["name": .string("auth-prm-pathbased-server"), "version": .string("1.0.0")]),
                ]))
        case "tools/list": return events(id, toolsList)
        case "tools/call":
            guard params["name"]?.stringValue == "test-tool" else { return events(id, error: -32602, "Unknown tool") }
            return events(id, toolResult)
        case "ping": return events(id, .object([:]))
        default: return events(id, error: -32601, "Method not found")
        }
    }

    static let toolsList: JSONValue = .object([
        "tools": .array([.object(["name": .string("test-tool"), "inputSchema": .object(["type": .string("object")])])])
    ])
    static let toolResult: JSONValue = .object(["content": .array([.object(["type": .string("text"), "text": .string("test")])])])

    private static func stateless(
        _ request: TransportRequest, id: JSONValue?, method: String, params: [String: JSONValue], version: ConformanceSpecVersion
    ) -> TransportResponse {
        guard let header = ConformanceRun.header(request, "MCP-Protocol-Version") else {
            return rpcError(id, -32020, "Missing MCP-Protocol-Version header", status: 400)
        }
        let meta = params["_meta"]?.objectValue ?? [:]
        guard let stated = meta["io.modelcontextprotocol/protocolVersion"]?.stringValue, meta["io.modelcontextprotocol/clientCapabilities"] != nil
        else {
            return rpcError(id, -32602, "Missing _meta protocol version or client capabilities", status: 400)
        }
        guard stated == header else { return rpcError(id, -32020, "MCP-Protocol-Version header does not match _meta", status: 400) }
        guard stated == version.rawValue else {
            return rpcError(
                id, -32022, "Unsupported protocol version", status: 400,
                data: .object(["supported": .array([.string(version.rawValue)]), "requested": .string(stated)]))
        }
        func complete(_ result: [String: JSONValue], cache: Bool) -> TransportResponse {
            var result = result
            result["resultType"] = .string("complete")
            if cache {
                result["ttlMs"] = .number(0)
                result["cacheScope"] = .string("private")
            }
            return ConformanceRun.json(["jsonrpc": .string("2.0"), "id": id ?? .null, "result": .object(result)])
        }
        switch method {
        case "server/discover":
            return complete(
                [
                    "supportedVersions": .array([.string(version.rawValue)]), "capabilities": .object(["tools": .object([:])]),
                    "_meta": .object([
                        "io.modelcontextprotocol/serverInfo": .object(["name": .string("conformance-mock-server"), "version": .string("1.0.0")])
                    ]),
                ], cache: true)
        case "tools/list": return complete(toolsList.objectValue ?? [:], cache: true)
        case "tools/call":
            guard params["name"]?.stringValue == "test-tool" else { return rpcError(id, -32602, "Unknown tool", status: 200) }
            return complete(toolResult.objectValue ?? [:], cache: false)
        default: return rpcError(id, -32601, "Method not found", status: 404)
        }
    }

    static func rpcError(_ id: JSONValue?, _ code: Int, _ message: String, status: Int, data: JSONValue? = nil) -> TransportResponse {
        var error: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        if let data { error["data"] = data }
        return ConformanceRun.json(["jsonrpc": .string("2.0"), "id": id ?? .null, "error": .object(error)], status: status)
    }

    private static func events(_ id: JSONValue?, _ result: JSONValue? = nil, error code: Int? = nil, _ message: String = "") -> TransportResponse {
        var members: [String: JSONValue] = ["jsonrpc": .string("2.0"), "id": id ?? .null]
        if let code {
            members["error"] = .object(["code": .number(Double(code)), "message": .string(message)])
        } else {
            members["result"] = result ?? .null
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = String(decoding: (try? encoder.encode(JSONValue.object(members))) ?? Data(), as: UTF8.self)
        return TransportResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: Data("event: message\ndata: \(data)\n\n".utf8))
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }
}

// MARK: - JOSE for the DPoP scenarios (ES256 only: what the client signs with)

enum MockJWT {
    static func sign(header: [String: JSONValue], claims: [String: JSONValue], key: P256.Signing.PrivateKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let head = Base64URL.encode((try? encoder.encode(JSONValue.object(header))) ?? Data())
        let body = Base64URL.encode((try? encoder.encode(JSONValue.object(claims))) ?? Data())
        let signature = (try? key.signature(for: Data("\(head).\(body)".utf8)).rawRepresentation) ?? Data()
        return "\(head).\(body).\(Base64URL.encode(signature))"
    }

    /// The header and claims of a compact JWS, unverified.
    static func decode(_ jwt: String) -> (header: [String: JSONValue], claims: [String: JSONValue], signature: Data, input: Data)? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let head = Base64URL.decode(parts[0]), let body = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case let .object(header)? = try? JSONDecoder().decode(JSONValue.self, from: head),
            case let .object(claims)? = try? JSONDecoder().decode(JSONValue.self, from: body)
        else { return nil }
        return (header, claims, signature, Data("\(parts[0]).\(parts[1])".utf8))
    }

    /// The RFC 7638 SHA-256 thumbprint of an EC or RSA public JWK.
    static func thumbprint(_ jwk: [String: JSONValue]) -> String? {
        let members: [String]
        switch jwk["kty"]?.stringValue {
        case "EC": members = ["crv", "kty", "x", "y"]
        case "RSA": members = ["e", "kty", "n"]
        case "OKP": members = ["crv", "kty", "x"]
        default: return nil
        }
        var text = "{"
        for (index, name) in members.enumerated() {
            guard let value = jwk[name]?.stringValue else { return nil }
            text += (index == 0 ? "" : ",") + "\"\(name)\":\"\(value)\""
        }
        return Base64URL.encode(Data(SHA256.hash(data: Data((text + "}").utf8))))
    }
}

/// A DPoP proof checked as `helpers/dpop.ts` checks one, in its order.
struct MockDPoPProof {
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let jti: String
    let nonce: String?
    let thumbprint: String

    static let algorithms: Set<String> = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"]

    static func verify(_ proof: String, method: String, target: String, accessToken: String?) throws -> MockDPoPProof {
        guard let (header, claims, signature, input) = MockJWT.decode(proof) else { throw Refusal("DPoP proof is not a JWS") }
        guard header["typ"]?.stringValue == "dpop+jwt" else { throw Refusal("DPoP proof typ must be dpop+jwt") }
        guard let alg = header["alg"]?.stringValue, algorithms.contains(alg) else { throw Refusal("DPoP proof alg is not asymmetric") }
        guard let jwk = header["jwk"]?.objectValue, jwk["d"] == nil else { throw Refusal("DPoP proof jwk missing or private") }
        // The suite verifies any asymmetric algorithm; this reproduction verifies ES256, what the client under test signs with.
        guard alg == "ES256", jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256",
            let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode),
            let key = try? P256.Signing.PublicKey(rawRepresentation: x + y),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature), key.isValidSignature(ecdsa, for: input)
        else { throw Refusal("DPoP proof signature invalid") }
        guard let jti = claims["jti"]?.stringValue else { throw Refusal("DPoP proof jti must be a string") }
        guard claims["htm"]?.stringValue == method else { throw Refusal("DPoP proof htm mismatch") }
        guard let htu = claims["htu"]?.stringValue, !htu.contains("?"), !htu.contains("#") else { throw Refusal("DPoP proof htu invalid") }
        guard normalized(htu) == normalized(target) else { throw Refusal("DPoP proof htu mismatch: \(htu) vs \(target)") }
        guard case let .number(iat)? = claims["iat"], abs(iat - Date().timeIntervalSince1970) <= 300 else {
            throw Refusal("DPoP proof iat outside the window")
        }
        guard let thumbprint = MockJWT.thumbprint(jwk) else { throw Refusal("DPoP proof jwk has no thumbprint") }
        if let accessToken {
            guard claims["ath"]?.stringValue == ConformanceRun.s256(accessToken) else { throw Refusal("DPoP proof ath mismatch") }
            guard let (_, tokenClaims, _, _) = MockJWT.decode(accessToken),
                tokenClaims["cnf"]?.objectValue?["jkt"]?.stringValue == thumbprint
            else { throw Refusal("access token cnf.jkt does not match the proof key") }
        }
        return MockDPoPProof(jti: jti, nonce: claims["nonce"]?.stringValue, thumbprint: thumbprint)
    }

    /// Lower-case scheme and host, the default port dropped, one trailing slash tolerated.
    static func normalized(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if (components.scheme == "https" && components.port == 443) || (components.scheme == "http" && components.port == 80) {
            components.port = nil
        }
        var text = components.string ?? url
        if text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

// MARK: - The MCP server's DPoP judge (helpers/dpopResourceAuth.ts)

/// What the DPoP judge records of the requests that carried `Authorization`.
final class MockDPoPJudge: @unchecked Sendable {
    static let nonce = "conformance-rs-dpop-nonce"

    let requireNonce: Bool
    let endpoint: String
    let prm: String
    private let lock = NSLock()
    private(set) var authenticated = 0
    private(set) var schemes: [String] = []
    private(set) var proofProblems: [String] = []
    private var seen: Set<String> = []
    private(set) var replays = 0
    private(set) var nonceChallenged = false
    private(set) var nonceHonoured = false

    init(endpoint: String, prm: String, requireNonce: Bool) {
        self.endpoint = endpoint
        self.prm = prm
        self.requireNonce = requireNonce
    }

    /// The middleware: an answer ends the request; nil lets it through to MCP (an invalid proof is only recorded).
    func judge(_ request: TransportRequest) -> TransportResponse? {
        guard let authorization = ConformanceRun.header(request, "Authorization") else {
            return ConformanceRun.json(
                ["error": .string("unauthorized")], status: 401, headers: ["WWW-Authenticate": "DPoP resource_metadata=\"\(prm)\""])
        }
        return lock.withLock {
            authenticated += 1
            let scheme = String(authorization.prefix { $0 != " " })
            schemes.append(scheme)
            let token = String(authorization.drop { $0 != " " }.dropFirst())
            guard let header = ConformanceRun.header(request, "DPoP"), !header.contains(",") else {
                proofProblems.append("no single DPoP proof")
                return nil
            }
            let proof: MockDPoPProof
            do {
                proof = try MockDPoPProof.verify(header, method: request.method.rawValue, target: endpoint, accessToken: token)
            } catch {
                proofProblems.append("\(error)")
                return nil
            }
            if !seen.insert(proof.jti).inserted { replays += 1 }
            if requireNonce {
                guard proof.nonce == Self.nonce else {
                    nonceChallenged = true
                    return ConformanceRun.json(
                        ["error": .string("use_dpop_nonce")], status: 401,
                        headers: [
                            "WWW-Authenticate": "DPoP error=\"use_dpop_nonce\", resource_metadata=\"\(prm)\"", "DPoP-Nonce": Self.nonce,
                        ])
                }
                if nonceChallenged { nonceHonoured = true }
            }
            return nil
        }
    }
}
