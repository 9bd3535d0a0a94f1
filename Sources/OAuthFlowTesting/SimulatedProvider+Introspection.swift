import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The introspection endpoint (RFC 7662): an authenticated client asks about a token; anything but a valid
    /// access or refresh token is `{"active": false}` and nothing more (§2.2).
    func introspectionEndpoint(_ request: TransportRequest) throws -> TransportResponse {
        let form = try Self.form(of: request)
        _ = try authenticateClient(request, form)
        guard let token = form["token"] else { throw OAuthRefusal.invalidRequest("token is missing") }
        let now = clock.now()
        if let grant = accessTokens[token], isActive(grant, at: now) {
            var members: [String: JSONValue] = [
                "active": .bool(true), "scope": .string(grant.scopes.joined(separator: " ")), "client_id": .string(grant.clientID),
                "token_type": .string(grant.proofKey == nil ? "Bearer" : "DPoP"),
                "exp": .number(grant.expiresAt.timeIntervalSince1970.rounded(.down)),
                "iat": .number(grant.issuedAt.timeIntervalSince1970.rounded(.down)), "iss": .string(issuer.absoluteString),
                "aud": Self.audienceClaim(grant.audience), "sub": .string(grant.subject ?? grant.clientID),
            ]
            if let key = grant.proofKey { members["cnf"] = .object(["jkt": .string(key)]) }
            Self.confirm(&members, certificate: grant.certificate)
            if let details = grant.authorizationDetails { members["authorization_details"] = details }
            if let time = grant.authentication.time { members["auth_time"] = .number(time.timeIntervalSince1970.rounded(.down)) }
            if let acr = grant.authentication.acr { members["acr"] = .string(acr) }
            return Self.json(members)
        }
        if let grant = refreshTokens[token], !grant.revoked, !grant.spent, !revokedFamilies.contains(grant.family), grant.expiresAt > now {
            return Self.json([
                "active": .bool(true), "scope": .string(grant.scopes.joined(separator: " ")), "client_id": .string(grant.clientID),
                "token_type": .string("refresh_token"), "exp": .number(grant.expiresAt.timeIntervalSince1970.rounded(.down)),
                "iss": .string(issuer.absoluteString), "sub": .string(grant.subject),
            ])
        }
        return Self.json(["active": .bool(false)])
    }

    /// Whether an access token is unexpired and not revoked.
    func isActive(_ grant: AccessGrant, at now: Date) -> Bool {
        !grant.revoked && grant.expiresAt > now && !(grant.family.map(revokedFamilies.contains) ?? false)
    }

    /// The revocation endpoint (RFC 7009 §2): the client's own token is revoked (a refresh token with every token
    /// of its grant); an unknown or invalid token is answered 200 all the same (§2.2).
    func revocationEndpoint(_ request: TransportRequest) throws -> TransportResponse {
        let form = try Self.form(of: request)
        let client = try authenticateClient(request, form)
        guard let token = form["token"] else { throw OAuthRefusal.invalidRequest("token is missing") }
        if let grant = refreshTokens[token] {
            guard grant.clientID == client.id else { throw OAuthRefusal("unauthorized_client", "the token was issued to another client") }
            revokeFamily(grant.family)
        } else if let grant = accessTokens[token] {
            guard grant.clientID == client.id else { throw OAuthRefusal("unauthorized_client", "the token was issued to another client") }
            accessTokens[token]?.revoked = true
        }
        return TransportResponse(status: 200, headers: ["Cache-Control": "no-store"])
    }

    /// The userinfo endpoint (OpenID Connect Core §5.3): the user's claims for a valid access token, sent as
    /// `Bearer` (RFC 6750) or, for a bound token, as `DPoP` with a proof (RFC 9449 §7).
    func userInfoEndpoint(_ request: TransportRequest) async throws -> TransportResponse {
        let grant = try await presentedGrant(request, requiresSubject: true)
        let subject = grant.subject ?? ""  // presentedGrant refused a token without one
        var claims = userClaims(subject, scopes: grant.scopes)
        claims["sub"] = .string(subject)
        var response = Self.json(claims)
        if grant.proofKey != nil, settings.requiresDPoPNonce { response.headers["dpop-nonce"] = dpopNonce }
        return response
    }

    /// The grant of the access token `request` carries, as the provider's userinfo endpoint and its APIs
    /// (``protectedResourceRefusal(_:)``) take it: known and active (and a user's, when `requiresSubject`), presented
    /// with the certificate it is bound to, and sent as `DPoP` with a proof of its key when DPoP-bound, else as `Bearer`.
    ///
    /// - Throws: ``OAuthRefusal`` with the 401 and challenge (RFC 6750 §3, RFC 9449 §7) an API answers.
    func presentedGrant(_ request: TransportRequest, requiresSubject: Bool) async throws -> AccessGrant {
        func refuse(_ description: String, scheme: String = "Bearer") -> OAuthRefusal {
            OAuthRefusal(
                "invalid_token", description, status: 401,
                challenge: "\(scheme) realm=\"simulated\", error=\"invalid_token\", error_description=\"\(description)\"")
        }
        guard let authorization = Self.header("Authorization", of: request), let space = authorization.firstIndex(of: " ") else {
            throw OAuthRefusal("invalid_request", "no access token", status: 401, challenge: "Bearer realm=\"simulated\"")
        }
        let scheme = authorization[..<space].lowercased()
        let token = String(authorization[authorization.index(after: space)...]).trimmingCharacters(in: .whitespaces)
        guard let grant = accessTokens[token], isActive(grant, at: clock.now()), !requiresSubject || grant.subject != nil else {
            throw refuse("the access token is unknown, expired or revoked", scheme: scheme == "dpop" ? "DPoP" : "Bearer")
        }
        try requireCertificate(of: grant, in: request)
        if let bound = grant.proofKey {
            // RFC 9449 §7.2: a bound token presented as Bearer is a downgrade.
            guard scheme == "dpop" else { throw refuse("the access token is DPoP-bound: send it with the DPoP scheme and a proof", scheme: "DPoP") }
            guard let proof = try await checkProof(request, accessToken: token) else {
                throw OAuthRefusal("invalid_dpop_proof", "a proof is required", status: 401, challenge: "DPoP error=\"invalid_dpop_proof\"")
            }
            guard proof.thumbprint == bound else { throw refuse("the proof's key is not the token's", scheme: "DPoP") }
        } else {
            guard scheme == "bearer" else { throw refuse("the access token is not DPoP-bound: send it as Bearer") }
        }
        return grant
    }
}
