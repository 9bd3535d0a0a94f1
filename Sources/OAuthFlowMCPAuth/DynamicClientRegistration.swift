#if NIO
import Foundation
import OAuthFlow

/// A registration request (RFC 7591 §3.1) for a native MCP client, and the checks its answer (§3.2.1) must pass.
struct DynamicClientRegistration: Sendable {
    /// The largest registration answer read.
    static let maximumAnswerSize = 64 * 1024

    let endpoint: URL
    let issuer: URL
    let clientName: String
    /// The loopback redirect URIs (RFC 8252 §7.3: the server lets any port through).
    let redirectURIs: [URL]
    /// The scopes the client will ask for, when known.
    let scopes: [String]
    /// The client authentication methods the token endpoint takes (`token_endpoint_auth_methods_supported`).
    let authMethods: [String]?

    /// The request's JSON body: a public native client of the authorization code grant with refresh tokens.
    func body() throws -> Data {
        var members: [String: JSONValue] = [
            "client_name": .string(clientName),
            "redirect_uris": .array(redirectURIs.map { .string($0.absoluteString) }),
            "grant_types": .array([.string("authorization_code"), .string("refresh_token")]),
            "response_types": .array([.string("code")]),
            "token_endpoint_auth_method": .string("none"),
            "application_type": .string("native"),
        ]
        if !scopes.isEmpty { members["scope"] = .string(scopes.joined(separator: " ")) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(JSONValue.object(members))
    }

    /// Registers, through `transport`, and reads the answer.
    ///
    /// - Throws: ``MCPAuthorizationError`` `registrationFailed` for a refusal, a redirect, or an answer that is not a
    ///   usable client registration.
    func register(through transport: any HTTPTransport, now: Date) async throws -> RegisteredClient {
        let request = TransportRequest(
            method: .post, url: endpoint, headers: ["Content-Type": "application/json", "Accept": "application/json"], body: try body())
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw failure("cannot reach it: \(error)")
        }
        return try read(response, now: now)
    }

    /// The client an answer describes.
    func read(_ response: TransportResponse, now: Date) throws -> RegisteredClient {
        if (300..<400).contains(response.status) { throw failure("it answered HTTP \(response.status) (a redirect, not followed)") }
        guard response.body.count <= Self.maximumAnswerSize else { throw failure("its answer is larger than 64 KiB") }
        let object = try? ServerJSON.object(response.body)
        guard (200..<300).contains(response.status) else {
            // RFC 7591 §3.2.2: `error` and `error_description`.
            if let object, case let .string(code)? = object["error"] {
                var said = ServerDiscovery.shown(code)
                if case let .string(description)? = object["error_description"] { said += ": " + ServerDiscovery.shown(description) }
                throw failure("it refused the registration with HTTP \(response.status), \(said)")
            }
            throw failure("it answered HTTP \(response.status)")
        }
        guard let object else { throw failure("its answer is not one JSON object") }
        guard case let .string(clientID)? = object["client_id"], Self.isUsableID(clientID) else {
            throw failure("its answer has no usable `client_id` (a non-empty string of printable characters)")
        }
        var secret: Secret?
        switch object["client_secret"] {
        case nil, .null?: secret = nil
        case let .string(value)? where !value.isEmpty && value.utf8.count <= 4096: secret = Secret(value)
        default: throw failure("its `client_secret` is not a string")
        }
        var expires: Date?
        switch object["client_secret_expires_at"] {
        case nil, .null?: expires = nil
        case let .number(seconds)? where seconds.isFinite && seconds >= 0:
            // RFC 7591 §3.2.1: 0 means the secret does not expire.
            expires = seconds == 0 ? nil : Date(timeIntervalSince1970: seconds)
        default: throw failure("its `client_secret_expires_at` is not a time")
        }
        if secret == nil { expires = nil }
        let method: ProviderDescriptor.ClientAuthMethod
        switch object["token_endpoint_auth_method"] {
        case nil, .null?:
            method = Self.unnamedMethod(secret: secret != nil, listed: authMethods)
        case let .string(name)?:
            guard let named = ProviderDescriptor.ClientAuthMethod(rawValue: name), [.none, .clientSecretBasic, .clientSecretPost].contains(named)
            else {
                throw failure(
                    "it registered the client with `token_endpoint_auth_method` \(ServerDiscovery.shown(name)), which a native client cannot use")
            }
            method = named
        default: throw failure("its `token_endpoint_auth_method` is not a string")
        }
        guard method == .none || secret != nil else { throw failure("it registered a confidential client (\(method.rawValue)) but issued no secret") }
        // A public client (`none`) the server registered is taken even when its metadata lists only secret methods for
        // the token endpoint: many list none there (the Python MCP SDK's authorization server does) and take it.
        if let authMethods, method != .none, !authMethods.contains(method.rawValue), !(authMethods.isEmpty && method == .clientSecretBasic) {
            throw failure("it registered the client with \(method.rawValue), which its metadata does not list for the token endpoint")
        }
        var registered = redirectURIs
        if let value = object["redirect_uris"] {
            guard case let .array(values) = value else { throw failure("its `redirect_uris` is not an array") }
            let uris = values.compactMap { value -> URL? in
                if case let .string(text) = value { return URL(string: text) }
                return nil
            }
            // RFC 7591 §3.2.1: the server may change what was asked. A client without its loopback redirect cannot sign
            // in, and one with redirect URIs nobody asked for could send its codes elsewhere: only exactly those asked for.
            guard uris.count == values.count, Set(uris) == Set(redirectURIs) else {
                throw failure("it registered other redirect URIs than the loopback ones asked for")
            }
            registered = uris
        }
        return RegisteredClient(
            issuer: issuer, clientID: clientID, clientSecret: secret, secretExpiresAt: expires, authMethod: method, redirectURIs: registered)
    }

    /// The method of a registration answer that names none: `client_secret_basic` for a client given a secret (RFC 7591
    /// §2's default), unless the metadata's list leaves it out: then `client_secret_post` when listed, else `none` when
    /// listed (the secret is kept and not sent; the client asked for `none`, as the conformance suite's servers answer).
    static func unnamedMethod(secret: Bool, listed: [String]?) -> ProviderDescriptor.ClientAuthMethod {
        guard secret else { return .none }
        guard let listed, !listed.isEmpty, !listed.contains("client_secret_basic") else { return .clientSecretBasic }
        if listed.contains("client_secret_post") { return .clientSecretPost }
        return listed.contains("none") ? .none : .clientSecretBasic
    }

    /// RFC 7591 leaves the id's form to the server: one that is empty, huge or holds control characters or spaces is junk.
    static func isUsableID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 1024 && id.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    private func failure(_ why: String) -> MCPAuthorizationError {
        MCPAuthorizationError(
            .registrationFailed, "the dynamic client registration at \(endpoint.absoluteString) (of \(issuer.absoluteString)) failed: \(why)")
    }
}
#endif
