import Foundation

/// Reads token endpoint responses (RFC 6749 §5.1, §5.2), including the ways real servers bend them.
enum TokenResponseParser {
    /// Fields that are tokens or secrets and never go into ``TokenSet/additionalFields``.
    static let secretFields: Set<String> = ["access_token", "refresh_token", "id_token", "client_secret", "code"]

    /// The longest lifetime believed from `expires_in`: one year. A longer one is cut to this, so a
    /// server's `1e308` cannot make a session that is never refreshed.
    static let maximumLifetime: TimeInterval = 365 * 24 * 3600

    /// Whether `text` is a token's text: printable ASCII (RFC 6749 Appendix A.12, A.17; an ID token is a compact JWS).
    static func isTokenText(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// The refresh token a 2xx answer issued, read from its fields alone, before any other check: what a refresh record
    /// keeps after a crash, and what an answer that failed its checks leaves. Nil when it names none.
    static func issuedRefreshToken(in response: TransportResponse, format: ProviderDescriptor.TokenResponseFormat) -> String? {
        guard let fields = try? fields(of: response, format: format), let token = fields["refresh_token"]?.stringValue, !token.isEmpty
        else { return nil }
        return token
    }

    /// Parses a response body into fields.
    ///
    /// - Throws: ``FlowError`` (`invalidTokenResponse`) for an empty body, an HTML page, or unparsable JSON.
    /// - Parameter endpoint: Which endpoint answered, for messages ("the token endpoint").
    static func fields(
        of response: TransportResponse, format: ProviderDescriptor.TokenResponseFormat,
        endpoint: String = "the token endpoint"
    ) throws -> [String: JSONValue] {
        let text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw FlowError(.invalidTokenResponse, "\(endpoint) answered HTTP \(response.status) with an empty body")
        }
        let looksJSON = text.hasPrefix("{")
        let useJSON: Bool =
            switch format {
            case .json: true
            case .form: false
            case .auto: looksJSON
            }
        if useJSON {
            // Not UTF-8, or a member given twice (after its escapes): readers differ on what such an answer says.
            if looksJSON, let disagreement = ServerJSON.disagreement(in: [UInt8](response.body)) {
                throw FlowError(
                    .invalidTokenResponse, "\(endpoint) answered HTTP \(response.status) with JSON that \(disagreement); it is not believed")
            }
            guard looksJSON, let object = try? ServerJSON.object(response.body) else {
                let kind = text.hasPrefix("<") ? "an HTML page" : "a body that is not a JSON object"
                throw FlowError(
                    .invalidTokenResponse,
                    "\(endpoint) answered HTTP \(response.status) with \(kind) (content type \(TerminalText.escaped(response.header("content-type") ?? "none")))"
                )
            }
            return object
        }
        var fields: [String: JSONValue] = [:]
        for (name, value) in FormEncoding.decode(text) where fields[name] == nil {
            fields[name] = .string(value)
        }
        guard !fields.isEmpty, !text.hasPrefix("<") else {
            throw FlowError(.invalidTokenResponse, "\(endpoint) answered HTTP \(response.status) with a body that is not form-encoded")
        }
        return fields
    }

    /// The OAuth error in a response, if it carries one (also on HTTP 200, as GitHub sends them).
    static func serverError(in fields: [String: JSONValue], status: Int) -> AuthorizationServerError? {
        guard let error = fields["error"]?.stringValue, !error.isEmpty else { return nil }
        var answer = AuthorizationServerError(
            error: error, errorDescription: fields["error_description"]?.stringValue,
            errorURI: fields["error_uri"]?.stringValue, httpStatus: status)
        // RFC 9470 §3: a step-up names what would do, in its challenge's parameters, here the answer's members.
        if error == "insufficient_user_authentication" {
            answer.maximumAuthenticationAge = fields["max_age"]?.numberValue.flatMap { $0 >= 0 && $0 < Double(Int32.max) ? Int($0) : nil }
            answer.acrValues = fields["acr_values"]?.stringValue?.split(separator: " ").map(String.init) ?? []
        }
        return answer
    }

    /// Builds a token set from a successful response.
    ///
    /// - Parameters:
    ///   - requestedScopes: Used when the response has no `scope` (RFC 6749 §5.1).
    ///   - previous: On refresh, the set being refreshed: its refresh token is kept when
    ///     the server does not rotate it, and so is its ID token when no new one comes.
    static func tokenSet(
        from response: TransportResponse, format: ProviderDescriptor.TokenResponseFormat, separator: String, defaultTokenType: String? = nil,
        zeroExpiresIn: ProviderDescriptor.ZeroExpiresIn = .spent, requestedScopes: [String], previous: TokenSet?, now: Date,
        acceptsNotApplicable: Bool = false
    ) throws -> TokenSet {
        let fields = try fields(of: response, format: format)
        if let error = serverError(in: fields, status: response.status) { throw error }
        guard (200..<300).contains(response.status) else {
            throw FlowError(.invalidTokenResponse, "the token endpoint answered HTTP \(response.status) without an OAuth error")
        }
        guard let accessToken = fields["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw FlowError(.invalidTokenResponse, "the token response has no `access_token`")
        }
        // RFC 6749 Appendix A.12 and A.17: tokens are printable ASCII, and an ID token is a JWT (base64url parts and
        // dots). Anything else would reach a terminal or an HTTP header raw (`oauthflow token print`, `Authorization:
        // Bearer`), or be stored in a session that no reader then takes (nor signs out).
        for name in ["access_token", "refresh_token", "id_token"] {
            if let value = fields[name]?.stringValue, !isTokenText(value) {
                throw FlowError(
                    .invalidTokenResponse, "the token response's `\(name)` holds characters other than printable ASCII (RFC 6749 Appendix A)")
            }
        }
        guard let tokenType = (fields["token_type"]?.stringValue ?? defaultTokenType)?.lowercased(), !tokenType.isEmpty else {
            throw FlowError(.invalidTokenResponse, "the token response has no `token_type`")
        }
        // RFC 8693 §2.2.1: a token exchange that issues something other than an access token says `N_A`.
        // RFC 9449 §5: `DPoP` for tokens bound to the request's proof key (OAuthClient checks that one was sent).
        guard tokenType == "bearer" || tokenType == "dpop" || acceptsNotApplicable && tokenType == "n_a" else {
            throw FlowError(
                .invalidTokenResponse,
                "the token type `\(TerminalText.escaped(String(tokenType.prefix(40))))` is not supported; only Bearer and DPoP are")
        }
        var expiresAt: Date?
        // JSON null is an absent member. A lifetime of 0 seconds is spent at once (RFC 6749 §5.1): the token serves the
        // request at hand and is never reused; a provider that means "no expiry" by it says so in its descriptor.
        if let expires = fields["expires_in"], expires != .null {
            // A string (some servers quote the number) is taken only as decimal digits: not `0x10`, ` 3600` or `+3600`.
            let digitsOnly = expires.stringValue.map { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } } ?? true
            guard digitsOnly, let seconds = expires.numberValue, seconds.isFinite, seconds >= 0 else {
                throw FlowError(.invalidTokenResponse, "the token response's `expires_in` is not a number of seconds: \(expires)")
            }
            if seconds > 0 || zeroExpiresIn == .spent { expiresAt = now.addingTimeInterval(min(seconds, maximumLifetime)) }
        }
        let scopes: [String]
        if let scope = fields["scope"], scope != .null {
            switch scope {
            case let .string(text):
                let separators = CharacterSet(charactersIn: separator == " " ? " " : separator + " ")
                scopes = text.components(separatedBy: separators).filter { !$0.isEmpty }
            case let .array(values):
                scopes = values.compactMap(\.stringValue)
            default:
                throw FlowError(.invalidTokenResponse, "the token response's `scope` is neither a string nor a list")
            }
        } else {
            scopes = previous?.scopes ?? requestedScopes
        }
        var tokens = TokenSet(
            accessToken: Secret(accessToken),
            tokenType: tokenType,
            expiresAt: expiresAt,
            // An empty string is no token (RFC 6749 §5.1 asks for one or none).
            refreshToken: fields["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) } ?? previous?.refreshToken,
            idToken: fields["id_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) } ?? previous?.idToken,
            scopes: scopes,
            issuedAt: now,
            additionalFields: fields.filter {
                !secretFields.contains($0.key) && !["token_type", "expires_in", "scope", "authorization_details", "grant_id"].contains($0.key)
            },
            // A refresh answer keeps the key its tokens are bound to; a Bearer one is unbound.
            proofKey: tokenType == "dpop" ? previous?.proofKey : nil)
        // What the session keeps from its callback for refreshes stays with every refresh of it.
        tokens.callbackParameters = previous?.callbackParameters
        tokens.authorizationDetails = try authorizationDetails(in: fields, body: response.body) ?? previous?.authorizationDetails
        tokens.grantID = try grantID(in: fields) ?? previous?.grantID
        return tokens
    }

    /// The answer's `grant_id` (FAPI Grant Management §5.3); nil when it sends none.
    ///
    /// - Throws: ``FlowError`` `invalidTokenResponse` for a `grant_id` that is not a string a server issues (1 to 512
    ///   bytes, no space or control character): it is sent back in URLs and later requests.
    static func grantID(in fields: [String: JSONValue]) throws -> String? {
        guard let value = fields["grant_id"], value != .null else { return nil }
        guard let text = value.stringValue, (try? ManagedGrant.Action.check(text)) != nil else {
            throw FlowError(
                .invalidTokenResponse, "the token response's `grant_id` is not a string of 1 to 512 bytes without spaces or control characters")
        }
        return text
    }

    /// The answer's `authorization_details` (RFC 9396 §7), as the server granted them (it may change what was asked
    /// for); nil when it sends none. These are the grant, so an answer whose JSON gives any member twice is refused:
    /// readers differ on which of the two wins.
    ///
    /// - Throws: ``FlowError`` `invalidTokenResponse` for details that are not an array of objects with a `type`.
    static func authorizationDetails(in fields: [String: JSONValue], body: Data) throws -> [AuthorizationDetail]? {
        guard let value = fields["authorization_details"], value != .null else { return nil }
        if let disagreement = ServerJSON.disagreement(in: Array(body)) {
            throw FlowError(.invalidTokenResponse, "the token response carries authorization details, and it \(disagreement)")
        }
        do {
            return try AuthorizationDetail.list(value, what: "the token response's `authorization_details`")
        } catch let error as FlowError {
            throw FlowError(.invalidTokenResponse, error.message)
        }
    }
}
