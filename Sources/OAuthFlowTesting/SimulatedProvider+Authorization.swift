import Crypto
import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// Plays the user who signs in and consents at the browser: checks the authorization request the URL
    /// carries (or the pushed one it names) and returns the redirect the browser would follow, with `code`,
    /// `state` and `iss` (RFC 9207).
    ///
    /// A request that names an unknown client or a redirect URI the client did not register is never
    /// redirected (RFC 6749 §4.1.2.1): that throws. Any other fault goes back in the redirect as
    /// `error` (`unsupported_response_type`, `invalid_request` for missing or `plain` PKCE).
    ///
    /// - Parameters:
    ///   - url: The authorization URL the library built (`PendingAuthorization.url`).
    ///   - subject: Who signs in: the ID token's and userinfo's `sub`.
    /// A request with `response_mode` `jwt` or `query.jwt` is answered with one `response` parameter, a JWT signed
    /// with the provider's key holding these fields (JARM); `form_post` and `form_post.jwt` answer with a POST, which
    /// ``approveWithPost(_:subject:)`` plays.
    ///
    /// - Returns: The redirect to hand to `OAuthClient.finishSignIn(.callback(_:), pending:)`.
    /// - Throws: ``SimulationError`` when the request cannot be redirected.
    public func approve(_ url: URL, subject: String = "user-1") async throws -> URL {
        let (request, redirect) = try authorizationRequest(url)
        return try Self.redirect(redirect, try await responseFields(approving: request, subject: subject, post: false))
    }

    /// Plays the user who signs in and consents, for a request whose `response_mode` is `form_post` or `form_post.jwt`:
    /// the redirect URI and the form the browser would POST to it (with one `response` JWT for `form_post.jwt`).
    ///
    /// - Returns: The redirect URI and the body to hand to `OAuthClient.finishSignIn(.formPost(_:), pending:)`.
    /// - Throws: ``SimulationError`` when the request cannot be redirected or asks for another response mode.
    public func approveWithPost(_ url: URL, subject: String = "user-1") async throws -> (url: URL, body: Data) {
        let (request, redirect) = try authorizationRequest(url)
        let fields = try await responseFields(approving: request, subject: subject, post: true)
        guard let target = URL(string: redirect) else { throw SimulationError("the redirect URI does not parse") }
        return (target, Data(FormEncoding.encode(fields).utf8))
    }

    /// The fields of the answer to `request`: `code` (or `error`), `state` and `iss`, signed into `response` for a JWT
    /// response mode.
    private func responseFields(approving request: AuthorizationRequest, subject: String, post: Bool) async throws -> [(String, String)] {
        var fields = [("iss", issuer.absoluteString)]
        if let state = request.parameters["state"] { fields.insert(("state", state), at: 0) }
        do {
            let code = try grantCode(request, subject: subject)
            fields.insert(("code", code), at: 0)
        } catch let refusal as OAuthRefusal {
            fields.insert(contentsOf: [("error", refusal.error), ("error_description", refusal.description)], at: 0)
        }
        return try await answering(request, fields, post: post)
    }

    /// Plays the user who declines: the redirect with `error=access_denied` (in a `response` JWT for a JWT response mode).
    ///
    /// - Throws: ``SimulationError`` when the request cannot be redirected.
    public func deny(_ url: URL) async throws -> URL {
        let (request, redirect) = try authorizationRequest(url)
        var fields = [("error", "access_denied"), ("iss", issuer.absoluteString)]
        if let state = request.parameters["state"] { fields.append(("state", state)) }
        return try Self.redirect(redirect, try await answering(request, fields, post: false))
    }

    /// An authorization request as the endpoint sees it: its parameters and the key of a pushed request's proof.
    struct AuthorizationRequest {
        let client: SimulatedClient
        let parameters: [String: String]
        /// Whether the parameters came from the pushed request endpoint.
        let pushed: Bool
        let pushedProofKey: String?
        /// Whether the parameters came from a signed request object (RFC 9101).
        var signed = false
    }

    /// The request behind an authorization URL, with the redirect URI errors may go to.
    private func authorizationRequest(_ url: URL) throws -> (AuthorizationRequest, String) {
        guard url.scheme == issuer.scheme, url.host == issuer.host, url.port == issuer.port,
            Endpoint(path: url.path, issuer: issuer) == .authorization,
            let encoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        else { throw SimulationError("\(url.absoluteString) is not this provider's authorization endpoint with a query") }
        counts[.authorization, default: 0] += 1
        let query: [String: String]
        do {
            // Form-encoded, as browsers and other clients send it: `+` is a space (`scope=openid+profile`).
            query = try Self.parameters(FormEncoding.decode(encoded))
        } catch {
            throw SimulationError("the authorization request repeats a parameter")
        }
        guard let clientID = query["client_id"], let client = clients[clientID] else {
            throw SimulationError("the authorization request names no registered client")
        }
        var parameters = query
        var proofKey: String?
        var signed = false
        if let object = query["request"] {
            // RFC 9101 §5: the request object's parameters are the request; client_id outside must be its own.
            guard query["request_uri"] == nil else { throw SimulationError("the authorization request carries both request and request_uri") }
            parameters = try requestObject(object, from: client)
            signed = true
        }
        if let requestURI = query["request_uri"] {
            // RFC 9126 §4: the pushed request is used once, by the client that pushed it, before it expires.
            guard let pushed = pushedRequests.removeValue(forKey: requestURI), pushed.clientID == clientID else {
                throw SimulationError("the request_uri is unknown, used already or another client's")
            }
            guard pushed.expiresAt > clock.now() else { throw SimulationError("the pushed request expired") }
            parameters = pushed.parameters
            proofKey = pushed.proofKey
            signed = pushed.signed
        }
        guard let redirect = parameters["redirect_uri"], client.allowsRedirect(redirect, exactPort: settings.loopbackPortsMatchExactly) else {
            throw SimulationError("the redirect_uri is missing or not registered for client `\(clientID)`: the provider shows an error page")
        }
        let pushed = query["request_uri"] != nil
        var request = AuthorizationRequest(client: client, parameters: parameters, pushed: pushed, pushedProofKey: proofKey)
        request.signed = signed
        return (request, redirect)
    }

    /// Checks what may go back in the redirect and issues the code.
    private func grantCode(_ request: AuthorizationRequest, subject: String) throws -> String {
        let parameters = request.parameters
        if settings.requiresPushedAuthorization, !request.pushed {
            throw OAuthRefusal.invalidRequest("this provider takes pushed authorization requests only (RFC 9126 §5)")
        }
        if settings.requiresSignedRequestObject, !request.signed {
            throw OAuthRefusal.invalidRequest("this provider takes signed request objects only (RFC 9101 §10.5)")
        }
        guard parameters["response_type"] == "code" else {
            throw OAuthRefusal("unsupported_response_type", "only `code` is supported")
        }
        // RFC 9700 §2.1.1 and RFC 7636 §4.3: PKCE with S256, always; a missing method means `plain`.
        guard let challenge = parameters["code_challenge"] else { throw OAuthRefusal.invalidRequest("code_challenge is required") }
        guard parameters["code_challenge_method"] == "S256" else {
            throw OAuthRefusal.invalidRequest("code_challenge_method must be S256")
        }
        guard challenge.count == 43, Base64URL.decode(challenge)?.count == 32 else {
            throw OAuthRefusal.invalidRequest("code_challenge is not a base64url SHA-256 digest")
        }
        var proofKey = request.pushedProofKey
        if let jkt = parameters["dpop_jkt"] {
            // RFC 9449 §10.1: a pushed request's proof and its dpop_jkt must name the same key.
            if let proofKey, proofKey != jkt { throw OAuthRefusal.invalidRequest("dpop_jkt is not the key of the pushed request's proof") }
            proofKey = jkt
        }
        let scopes = try request.client.granted((parameters["scope"] ?? "").split(separator: " ").map(String.init))
        let details = try grantedDetails(parameters["authorization_details"])
        let now = clock.now()
        let (authTime, acr) = authentication(asked: parameters, now: now)
        let code = Self.random()
        codes[code] = CodeGrant(
            clientID: request.client.id, redirectURI: parameters["redirect_uri"] ?? "", codeChallenge: challenge, scopes: scopes,
            nonce: parameters["nonce"], subject: subject, sessionID: Base64URL.random(bytes: 12), authTime: authTime, acr: acr,
            expiresAt: now.addingTimeInterval(settings.codeLifetime), dpopKey: proofKey, authorizationDetails: details)
        return code
    }

    /// When the user authenticated and how, as an authorization request asks (OpenID Connect `max_age` and `acr_values`):
    /// the user's last authentication, ``Settings/userAuthenticatedAgo`` back, unless `max_age` is shorter (the user signs
    /// in again now); the first `acr_values` class the provider supports, else ``Settings/defaultACR``. A provider set not
    /// to honour them (``Settings/honoursStepUp``) answers as if nothing were asked.
    private func authentication(asked parameters: [String: String], now: Date) -> (Date, String?) {
        let last = now.addingTimeInterval(-settings.userAuthenticatedAgo)
        guard settings.honoursStepUp else { return (last, settings.defaultACR) }
        var authTime = last
        if let age = parameters["max_age"].flatMap(Int.init), now.timeIntervalSince(last) > Double(age) { authTime = now }
        let asked = (parameters["acr_values"] ?? "").split(separator: " ").map(String.init)
        return (authTime, asked.first(where: settings.acrValuesSupported.contains) ?? settings.defaultACR)
    }

    /// The redirect URI with `fields` added to its query.
    private static func redirect(_ uri: String, _ fields: [(String, String)]) throws -> URL {
        guard var components = URLComponents(string: uri) else { throw SimulationError("the redirect URI does not parse") }
        let added = fields.map { "\(FormEncoding.encode($0.0))=\(FormEncoding.encode($0.1))" }.joined(separator: "&")
        components.percentEncodedQuery = [components.percentEncodedQuery, added].compactMap { $0 }.joined(separator: "&")
        guard let url = components.url else { throw SimulationError("the redirect does not form a URL") }
        return url
    }

    /// The pushed authorization request endpoint (RFC 9126 §2): the client authenticates as at the token
    /// endpoint, and gets a `request_uri` to send the browser with.
    func pushedAuthorizationEndpoint(_ request: TransportRequest) async throws -> TransportResponse {
        var form = try Self.form(of: request)
        let client = try authenticateClient(request, form)
        guard form["request_uri"] == nil else { throw OAuthRefusal.invalidRequest("a pushed request cannot carry request_uri (RFC 9126 §2.1)") }
        let signed = form["request"] != nil
        if let object = form["request"] {
            // RFC 9126 §3: a pushed request object's parameters are the request.
            do {
                form = try requestObject(object, from: client)
            } catch let error as SimulationError {
                throw OAuthRefusal("invalid_request_object", error.message)
            }
        }
        guard let redirect = form["redirect_uri"], client.allowsRedirect(redirect, exactPort: settings.loopbackPortsMatchExactly) else {
            throw OAuthRefusal.invalidRequest("the redirect_uri is missing or not registered")
        }
        let proof = try await checkProof(request, accessToken: nil)
        // RFC 9396 §4: details pushed are checked as they would be in the URL.
        _ = try grantedDetails(form["authorization_details"])
        var parameters = form
        parameters["client_secret"] = nil
        let requestURI = "urn:ietf:params:oauth:request_uri:" + Self.random()
        pushedRequests[requestURI] = PushedRequest(
            clientID: client.id, parameters: parameters, expiresAt: clock.now().addingTimeInterval(settings.pushedRequestLifetime),
            proofKey: proof?.thumbprint, signed: signed)
        var response = Self.json(
            ["request_uri": .string(requestURI), "expires_in": .number(settings.pushedRequestLifetime.rounded())], status: 201)
        if settings.requiresDPoPNonce { response.headers["dpop-nonce"] = dpopNonce }
        return response
    }

    /// RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))), for a verifier of 43 to 128 unreserved characters.
    static func verifies(_ verifier: String, challenge: String) -> Bool {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        guard (43...128).contains(verifier.count), verifier.allSatisfy({ unreserved.contains($0) }) else { return false }
        return ConstantTime.equals(Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))), challenge)
    }
}
