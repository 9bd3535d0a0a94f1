import Foundation
import OAuthFlow

/// A hand-written MCP client that gets authorization wrong in one way, as one of the conformance suite's broken clients
/// does (`examples/clients/typescript/auth-test-*.ts` at `c321dd3`): run against the reproduced scenario mocks, each
/// must draw the FAILURE or WARNING upstream expects, which shows the mocks' checks are live (issue 63 item 9).
///
/// It speaks HTTP through the run's transport, with no part of ``MCPAuthorization``: a 401 to an unauthenticated
/// request, the protected-resource metadata, the authorization server's metadata, Dynamic Client Registration, the
/// authorization request (the redirect read, not followed), the code exchange, and the request again with the token.
struct MCPBrokenClient {
    /// What it gets wrong.
    enum Fault: Sendable, CustomStringConvertible {
        /// Nothing: the control client, which no check may flag.
        case none
        /// Reads the protected-resource metadata at the root of the origin, whatever the challenge names (`auth-test-bad-prm`).
        case rootMetadataOnly
        /// Asks for the metadata's `scopes_supported`, never the challenge's `scope` (`auth-test-ignore-scope`).
        case ignoresChallengeScope
        /// Asks for this one scope whatever the server says (`auth-test-partial-scopes`).
        case fixedScope(String)
        /// Registers without `application_type` (`auth-test-no-application-type`).
        case noApplicationType
        /// Sends no `code_challenge` and no `code_verifier` (`auth-test-no-pkce`).
        case noPKCE
        /// Exchanges the code whatever `iss` the redirect carries (`auth-test.ts`, the SDK's default).
        case ignoresIss
        /// Compares `iss` after dropping a trailing slash on both sides (`auth-test-iss-normalize`).
        case normalizesIss
        /// Uses authorization server metadata whose `issuer` is not the one it was fetched for (`auth-test.ts`).
        case trustsMetadataIssuer
        /// Treats a 403 `insufficient_scope` as the end (`auth-test-ignore-403`).
        case ignores403
        /// Steps up for the challenged scope alone, dropping those granted before (`auth-test-echo-scope`).
        case echoesChallengeScope
        /// Signs in again at every 401 and 403, without a bound (`auth-test-no-retry-limit`).
        case noRetryLimit
        /// Keeps its first client when the resource names another authorization server (`auth-test-reuse-credentials`).
        case reusesCredentials
        /// A DPoP client (SEP-1932, `runDpopClient`), with one fault of `DPoPFault`.
        case dpop(DPoPFault)

        var description: String {
            switch self {
            case .none: "nothing wrong"
            case .rootMetadataOnly: "root metadata only"
            case .ignoresChallengeScope: "ignores the challenge's scope"
            case let .fixedScope(scope): "asks for \(scope) alone"
            case .noApplicationType: "no application_type"
            case .noPKCE: "no PKCE"
            case .ignoresIss: "ignores iss"
            case .normalizesIss: "normalizes iss"
            case .trustsMetadataIssuer: "trusts the metadata's issuer"
            case .ignores403: "ignores 403"
            case .echoesChallengeScope: "echoes the challenge's scope"
            case .noRetryLimit: "no retry limit"
            case .reusesCredentials: "reuses its client across authorization servers"
            case let .dpop(fault): "DPoP: \(fault)"
            }
        }
    }

    /// What a DPoP client gets wrong (upstream's `auth-test-dpop-*`).
    enum DPoPFault: Sendable {
        /// Nothing: proofs everywhere, fresh each time, nonces honoured.
        case none
        /// Presents the bound token with the Bearer scheme (`auth-test-dpop-bearer`).
        case bearerScheme
        /// Sends one proof with every MCP request (`auth-test-dpop-replay`).
        case reusesProof
        /// Sends no proof at the token endpoint (`auth-test-dpop-no-token-proof`).
        case noTokenProof
        /// Does not retry the token request with the authorization server's nonce (`auth-test-dpop-no-as-nonce`).
        case ignoresServerNonce
        /// Does not retry the MCP request with the MCP server's nonce (`auth-test-dpop-no-rs-nonce`).
        case ignoresResourceNonce
    }

    struct Stopped: Error, CustomStringConvertible {
        let description: String
    }

    let run: ConformanceRun
    let endpoint: URL
    let fault: Fault
    /// The DPoP key, the nonces last given, and the proof kept by a client that reuses it.
    private let state = DPoPState()

    private final class DPoPState: @unchecked Sendable {
        let key = try? DPoPKey.generate()
        var serverNonce: String?
        var resourceNonce: String?
        var kept: String?
    }

    private var dpopFault: DPoPFault? {
        if case let .dpop(fault) = fault { return fault }
        return nil
    }

    /// The flow through to an authenticated request; the error it stopped with, if any.
    func runEverything() async -> (any Error)? {
        do {
            try await flow()
            return nil
        } catch {
            return error
        }
    }

    private func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await run.transport.send(request)
    }

    private func getJSON(_ url: URL) async throws -> [String: JSONValue] {
        let answer = try await send(TransportRequest(method: .get, url: url))
        guard answer.status == 200, let object = try? ServerJSON.object(answer.body) else { throw Stopped(description: "no document at \(url)") }
        return object
    }

    private func post(_ url: URL, form: [(String, String)]) async throws -> [String: JSONValue] {
        let body = form.map { "\(FormEncoding.encode($0.0))=\(FormEncoding.encode($0.1))" }.joined(separator: "&")
        for attempt in 0..<2 {
            var headers = ["Content-Type": "application/x-www-form-urlencoded"]
            if let dpop = dpopFault, dpop != .noTokenProof, let key = state.key {
                headers["DPoP"] = try await key.proof(method: .post, url: url, nonce: state.serverNonce)
            }
            let answer = try await send(TransportRequest(method: .post, url: url, headers: headers, body: Data(body.utf8)))
            if answer.status == 400, let nonce = answer.header("dpop-nonce"), attempt == 0, dpopFault != .ignoresServerNonce {
                state.serverNonce = nonce
                continue
            }
            guard (200..<300).contains(answer.status), let object = try? ServerJSON.object(answer.body) else {
                throw Stopped(description: "\(url) answered \(answer.status)")
            }
            return object
        }
        throw Stopped(description: "\(url) asked for a nonce twice")
    }

    private func mcp(_ method: String, token: String?) async throws -> TransportResponse {
        var headers = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
        if run.version.isStateless { headers["MCP-Protocol-Version"] = run.version.rawValue }
        if let token {
            if let dpop = dpopFault, let key = state.key {
                headers["Authorization"] = (dpop == .bearerScheme ? "Bearer " : "DPoP ") + token
                let proof = try await key.proof(method: .post, url: endpoint, accessToken: Secret(token), nonce: state.resourceNonce)
                if dpop == .reusesProof, state.kept == nil { state.kept = proof }
                headers["DPoP"] = dpop == .reusesProof ? state.kept : proof
            } else {
                headers["Authorization"] = "Bearer " + token
            }
        }
        var params: [String: JSONValue] = method == "tools/call" ? ["name": .string("test-tool"), "arguments": .object([:])] : [:]
        if run.version.isStateless {
            headers["Mcp-Method"] = method
            params["_meta"] = .object([
                "io.modelcontextprotocol/protocolVersion": .string(run.version.rawValue),
                "io.modelcontextprotocol/clientCapabilities": .object([:]),
            ])
        }
        let body = try JSONEncoder().encode(
            JSONValue.object(["jsonrpc": .string("2.0"), "id": .number(1), "method": .string(method), "params": .object(params)]))
        return try await send(TransportRequest(method: .post, url: endpoint, headers: headers, body: body))
    }

    /// What discovery found, and the client registered.
    private struct Found {
        let issuer: String
        let server: [String: JSONValue]
        let clientID: String
        let supported: [String]
    }

    private static let redirect = "http://127.0.0.1:9/callback"

    private func flow() async throws {
        let first = try await mcp("tools/list", token: nil)
        guard first.status == 401 else { throw Stopped(description: "the first request answered \(first.status)") }
        let challenge = Self.challenge(of: first)
        var found = try await discover(challenge: challenge)
        var granted: [String] = []
        let asked: [String] =
            switch fault {
            case .ignoresChallengeScope: found.supported
            case let .fixedScope(fixed): [fixed]
            default: challenge?.parameters["scope"].map { $0.split(separator: " ").map(String.init) } ?? found.supported
            }
        var token = try await authorize(found, scopes: asked)
        granted = asked
        var signIns = 1
        for method in ["tools/list", "tools/call"] {
            while true {
                let answer = try await mcp(method, token: token)
                if (200..<300).contains(answer.status) { break }
                // RFC 9449 §9: the MCP server's nonce, taken once (unless this client ignores it).
                if answer.status == 401, let nonce = answer.header("dpop-nonce"), state.resourceNonce != nonce {
                    guard dpopFault != .ignoresResourceNonce else { throw Stopped(description: "\(method) asked for a nonce") }
                    state.resourceNonce = nonce
                    continue
                }
                guard answer.status == 401 || answer.status == 403 else { throw Stopped(description: "\(method) answered \(answer.status)") }
                let demanded = Self.challenge(of: answer)?.parameters["scope"].map { $0.split(separator: " ").map(String.init) } ?? []
                // A token refused: the resource may name another authorization server now (SEP-2352).
                if answer.status == 401 {
                    let again = try await discover(challenge: Self.challenge(of: answer), keeping: found)
                    found = again
                }
                let scopes: [String]
                switch fault {
                case .ignores403 where answer.status == 403: throw Stopped(description: "\(method) answered 403")
                case .echoesChallengeScope, .noRetryLimit: scopes = demanded
                default: scopes = granted + demanded.filter { !granted.contains($0) }
                }
                // The bound a client should keep (three sign-ins in all), which the broken one does not.
                if signIns >= (fault.isUnbounded ? 8 : 3) { throw Stopped(description: "gave up after \(signIns) sign-ins") }
                token = try await authorize(found, scopes: scopes)
                granted = scopes
                signIns += 1
            }
        }
    }

    private static func challenge(of answer: TransportResponse) -> TransportResponse.Challenge? {
        answer.header("www-authenticate").flatMap { TransportResponse.Challenge.parse($0).first }
    }

    /// The protected-resource metadata, the authorization server's, and a registration there; with `kept`, what was found
    /// before when the resource still names its server (and, for a client that reuses credentials, its client anyway).
    private func discover(challenge: TransportResponse.Challenge?, keeping kept: Found? = nil) async throws -> Found {
        let origin = ConformanceRun.origin(of: endpoint) ?? ""
        let named = challenge?.resourceMetadata?.absoluteString ?? origin + "/.well-known/oauth-protected-resource" + endpoint.path
        let metadataURL = if case .rootMetadataOnly = fault { origin + "/.well-known/oauth-protected-resource" } else { named }
        let resource = try await getJSON(try url(metadataURL))
        guard case let .array(servers)? = resource["authorization_servers"], let issuer = servers.first?.stringValue else {
            throw Stopped(description: "the resource names no authorization server")
        }
        let issuerURL = try url(issuer)
        let server = try await getJSON(try url((ConformanceRun.origin(of: issuerURL) ?? "") + "/.well-known/oauth-authorization-server" + issuerURL.path))
        if case .trustsMetadataIssuer = fault {} else {
            guard server["issuer"]?.stringValue == issuer else { throw Stopped(description: "the metadata names another issuer") }
        }
        var registration: [String: JSONValue] = [
            "client_name": .string("broken-client"), "redirect_uris": .array([.string(Self.redirect)]), "token_endpoint_auth_method": .string("none"),
            "grant_types": .array([.string("authorization_code")]), "response_types": .array([.string("code")]),
        ]
        if let kept, kept.issuer == issuer { return kept }
        if let kept, case .reusesCredentials = fault {
            return Found(issuer: issuer, server: server, clientID: kept.clientID, supported: kept.supported)
        }
        if case .noApplicationType = fault {} else { registration["application_type"] = .string("native") }
        guard let registrationEndpoint = server["registration_endpoint"]?.stringValue else { throw Stopped(description: "no registration") }
        let registered = try await send(
            TransportRequest(
                method: .post, url: try url(registrationEndpoint), headers: ["Content-Type": "application/json"],
                body: try JSONEncoder().encode(JSONValue.object(registration))))
        guard let clientID = (try? ServerJSON.object(registered.body))?["client_id"]?.stringValue else { throw Stopped(description: "not registered") }
        let supported: [String] = if case let .array(listed)? = resource["scopes_supported"] { listed.compactMap(\.stringValue) } else { [] }
        return Found(issuer: issuer, server: server, clientID: clientID, supported: supported)
    }

    /// The authorization request (its redirect read, `iss` judged as the fault says) and the code exchange: the token.
    private func authorize(_ found: Found, scopes: [String]) async throws -> String {
        let verifier = Base64URL.random(bytes: 32)
        var query: [(String, String)] = [
            ("response_type", "code"), ("client_id", found.clientID), ("redirect_uri", Self.redirect), ("state", "broken-state"),
            ("resource", endpoint.absoluteString),
        ]
        if !scopes.isEmpty { query.append(("scope", scopes.joined(separator: " "))) }
        if case .noPKCE = fault {} else {
            query += [("code_challenge", ConformanceRun.s256(verifier)), ("code_challenge_method", "S256")]
        }
        guard let authorizationEndpoint = found.server["authorization_endpoint"]?.stringValue,
            var components = URLComponents(string: authorizationEndpoint)
        else { throw Stopped(description: "no authorization endpoint") }
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        let answer = try await send(TransportRequest(method: .get, url: try url(components.url?.absoluteString ?? "")))
        guard let location = answer.header("location").flatMap(URLComponents.init(string:)) else { throw Stopped(description: "no redirect") }
        let items = Dictionary((location.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        let advertised = found.server["authorization_response_iss_parameter_supported"] == .bool(true)
        switch fault {
        case .ignoresIss: break
        case .normalizesIss:
            if let iss = items["iss"], iss.trimmingTrailingSlash != found.issuer.trimmingTrailingSlash { throw Stopped(description: "iss mismatch") }
            if items["iss"] == nil, advertised { throw Stopped(description: "iss missing") }
        default:
            if let iss = items["iss"], iss != found.issuer { throw Stopped(description: "iss mismatch") }
            if items["iss"] == nil, advertised { throw Stopped(description: "iss missing") }
        }
        guard let code = items["code"], let tokenEndpoint = found.server["token_endpoint"]?.stringValue else { throw Stopped(description: "no code") }
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirect), ("client_id", found.clientID),
            ("resource", endpoint.absoluteString),
        ]
        if case .noPKCE = fault {} else { form.append(("code_verifier", verifier)) }
        let tokens = try await post(try url(tokenEndpoint), form: form)
        guard let token = tokens["access_token"]?.stringValue else { throw Stopped(description: "no access token") }
        return token
    }

    private func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw Stopped(description: "not a URL: \(text)") }
        return url
    }
}

extension MCPBrokenClient.Fault {
    fileprivate var isUnbounded: Bool {
        if case .noRetryLimit = self { return true }
        return false
    }
}

extension String {
    fileprivate var trimmingTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
