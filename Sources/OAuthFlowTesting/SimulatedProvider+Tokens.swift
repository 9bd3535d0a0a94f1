import Crypto
import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// What a grant established, for the token response to issue.
    struct Issue {
        let clientID: String
        /// The user, or nil for a client's own token.
        let subject: String?
        let scopes: [String]
        /// The token's `aud`: the resources the request named (RFC 8707), or ``Settings/accessTokenAudience``.
        let audience: [String]
        /// The family of tokens of one authorization; nil for client credentials.
        let family: String?
        var sessionID: String?
        var nonce: String?
        var authTime: Date?
        var acr: String? = nil
        /// The key the access token is bound to (`cnf.jkt`).
        var proofKey: String?
        /// Issue a refresh token, bound to this key when it is a public client's (RFC 9449 §5).
        var refresh: (expiresAt: Date, proofKey: String?)?
        /// The authorization details granted (RFC 9396 §7).
        var authorizationDetails: JSONValue? = nil
        /// The `x5t#S256` of the client certificate the access token is bound to (RFC 8705 §3).
        var certificate: String? = nil
    }

    /// The token endpoint (RFC 6749 §3.2): authorization code, refresh token, client credentials and device code grants.
    func tokenEndpoint(_ request: TransportRequest) async throws -> TransportResponse {
        let form = try Self.form(of: request)
        let client = try authenticateClient(request, form)
        let proof = try await checkProof(request, accessToken: nil)
        if settings.requiresDPoP, proof == nil { throw OAuthRefusal.invalidDPoPProof("this provider issues DPoP-bound tokens only: send a proof") }
        var issue: Issue
        switch form["grant_type"] {
        case GrantType.authorizationCode.rawValue?: issue = try redeemCode(form, request, client: client, proof: proof)
        case GrantType.refreshToken.rawValue?: issue = try redeemRefreshToken(form, request, client: client, proof: proof)
        case GrantType.clientCredentials.rawValue?: issue = try clientCredentials(form, request, client: client, proof: proof)
        case GrantType.deviceCode.rawValue?: issue = try redeemDeviceCode(form, client: client, proof: proof)
        case nil: throw OAuthRefusal.invalidRequest("grant_type is missing")
        case let other?: throw OAuthRefusal("unsupported_grant_type", "`\(other)` is not a grant this provider takes")
        }
        issue.certificate = certificateBinding(of: request)
        return try await tokenResponse(issue)
    }

    /// RFC 6749 §4.1.3: the code is the client's, unexpired and unused, the redirect URI is the authorization
    /// request's, and the verifier matches its challenge (RFC 7636 §4.6); a code presented twice revokes what it gave.
    private func redeemCode(_ form: [String: String], _ request: TransportRequest, client: SimulatedClient, proof: VerifiedProof?) throws -> Issue {
        guard let code = form["code"], var grant = codes[code] else { throw OAuthRefusal.invalidGrant("unknown authorization code") }
        if let family = grant.family {
            revokeFamily(family)
            throw OAuthRefusal.invalidGrant("the authorization code was used before; the tokens it gave are revoked")
        }
        let family = Self.random()
        grant.family = family
        codes[code] = grant
        guard grant.expiresAt > clock.now() else { throw OAuthRefusal.invalidGrant("the authorization code expired") }
        guard grant.clientID == client.id else { throw OAuthRefusal.invalidGrant("the authorization code was issued to another client") }
        guard form["redirect_uri"] == grant.redirectURI else {
            throw OAuthRefusal.invalidGrant("redirect_uri is not the one of the authorization request")
        }
        guard let verifier = form["code_verifier"], Self.verifies(verifier, challenge: grant.codeChallenge) else {
            throw OAuthRefusal.invalidGrant("the code_verifier does not match the code_challenge")
        }
        if let bound = grant.dpopKey, proof?.thumbprint != bound {
            throw OAuthRefusal.invalidDPoPProof("the proof's key is not the dpop_jkt of the authorization request")
        }
        let now = clock.now()
        let refresh =
            settings.issuesRefreshTokens
            ? (now.addingTimeInterval(settings.refreshTokenLifetime), client.authentication == .none ? proof?.thumbprint : nil) : nil
        return Issue(
            clientID: client.id, subject: grant.subject, scopes: grant.scopes, audience: audience(Self.targets(of: request)), family: family,
            sessionID: grant.sessionID, nonce: grant.nonce, authTime: grant.authTime, acr: grant.acr, proofKey: proof?.thumbprint,
            refresh: refresh, authorizationDetails: grant.authorizationDetails)
    }

    /// RFC 6749 §6 with RFC 9700 §4.14.2: an unknown, expired, revoked or another client's refresh token is
    /// `invalid_grant`; a rotated one presented again is a reuse, which revokes its whole family.
    private func redeemRefreshToken(_ form: [String: String], _ request: TransportRequest, client: SimulatedClient, proof: VerifiedProof?) throws
        -> Issue
    {
        guard let token = form["refresh_token"], var grant = refreshTokens[token] else { throw OAuthRefusal.invalidGrant("unknown refresh token") }
        guard grant.clientID == client.id else { throw OAuthRefusal.invalidGrant("the refresh token was issued to another client") }
        guard !grant.revoked, !revokedFamilies.contains(grant.family) else { throw OAuthRefusal.invalidGrant("the refresh token was revoked") }
        if grant.spent {
            revokeFamily(grant.family)
            throw OAuthRefusal.invalidGrant("the refresh token was used before (a replay): every token of its grant is revoked")
        }
        guard grant.expiresAt > clock.now() else { throw OAuthRefusal.invalidGrant("the refresh token expired") }
        if let bound = grant.proofKey {
            guard let proof else { throw OAuthRefusal.invalidDPoPProof("the refresh token is DPoP-bound: send a proof with its key") }
            guard proof.thumbprint == bound else { throw OAuthRefusal.invalidGrant("the refresh token is bound to another DPoP key") }
        }
        var scopes = grant.scopes
        if let asked = form["scope"] {
            let narrowed = asked.split(separator: " ").map(String.init)
            guard Set(narrowed).isSubset(of: Set(grant.scopes)) else {
                throw OAuthRefusal("invalid_scope", "a refresh cannot ask for more scopes than were granted")
            }
            scopes = narrowed
        }
        if settings.rotatesRefreshTokens {
            grant.spent = true
            refreshTokens[token] = grant
        }
        return Issue(
            clientID: client.id, subject: grant.subject, scopes: scopes, audience: audience(Self.targets(of: request)),
            family: grant.family, sessionID: grant.sessionID, proofKey: proof?.thumbprint,
            refresh: settings.rotatesRefreshTokens ? (grant.expiresAt, grant.proofKey) : nil, authorizationDetails: grant.authorizationDetails)
    }

    /// RFC 6749 §4.4: a confidential client's own token; no refresh token (§4.4.3).
    private func clientCredentials(_ form: [String: String], _ request: TransportRequest, client: SimulatedClient, proof: VerifiedProof?) throws
        -> Issue
    {
        guard client.authentication != .none else {
            throw OAuthRefusal("unauthorized_client", "a public client cannot use the client credentials grant")
        }
        let scopes = try client.granted((form["scope"] ?? "").split(separator: " ").map(String.init))
        return Issue(
            clientID: client.id, subject: nil, scopes: scopes, audience: audience(Self.targets(of: request, audience: true)),
            family: nil, proofKey: proof?.thumbprint, authorizationDetails: try grantedDetails(form["authorization_details"]))
    }

    /// The token response (RFC 6749 §5.1): an access token (`DPoP` when bound, RFC 9449 §5), a refresh token when the
    /// grant gives one, and an ID token for `openid` (OpenID Connect Core §3.1.3.3).
    func tokenResponse(_ issue: Issue) async throws -> TransportResponse {
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(settings.accessTokenLifetime)
        let accessToken: String
        switch settings.accessTokenFormat {
        case .opaque:
            accessToken = Self.random()
        case .jwt:
            var claims: [String: JSONValue] = [
                "iss": .string(issuer.absoluteString), "sub": .string(issue.subject ?? issue.clientID), "aud": Self.audienceClaim(issue.audience),
                "client_id": .string(issue.clientID), "iat": .number(now.timeIntervalSince1970.rounded(.down)),
                "exp": .number(expiresAt.timeIntervalSince1970.rounded(.down)), "jti": .string(Base64URL.random(bytes: 16)),
                "scope": .string(issue.scopes.joined(separator: " ")),
            ]
            if let authTime = issue.authTime { claims["auth_time"] = .number(authTime.timeIntervalSince1970.rounded(.down)) }
            if let acr = issue.acr { claims["acr"] = .string(acr) }
            if let key = issue.proofKey { claims["cnf"] = .object(["jkt": .string(key)]) }
            Self.confirm(&claims, certificate: issue.certificate)
            if let details = issue.authorizationDetails { claims["authorization_details"] = details }
            accessToken = try await signWithCurrentKey(claims, type: "at+jwt")
        }
        accessTokens[accessToken] = AccessGrant(
            clientID: issue.clientID, subject: issue.subject, scopes: issue.scopes, audience: issue.audience, issuedAt: now, expiresAt: expiresAt,
            proofKey: issue.proofKey, family: issue.family, authorizationDetails: issue.authorizationDetails)
        accessTokens[accessToken]?.certificate = issue.certificate
        accessTokens[accessToken]?.authentication = (issue.authTime, issue.acr)
        var members: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string(issue.proofKey == nil ? "Bearer" : "DPoP"),
            "expires_in": .number(settings.accessTokenLifetime.rounded()), "scope": .string(issue.scopes.joined(separator: " ")),
        ]
        if let refresh = issue.refresh, let family = issue.family, let subject = issue.subject {
            let token = Self.random()
            refreshTokens[token] = RefreshGrant(
                clientID: issue.clientID, subject: subject, sessionID: issue.sessionID ?? "", scopes: issue.scopes, family: family,
                expiresAt: refresh.expiresAt, proofKey: refresh.proofKey, authorizationDetails: issue.authorizationDetails)
            members["refresh_token"] = .string(token)
        }
        if let details = issue.authorizationDetails { members["authorization_details"] = details }
        if issue.scopes.contains("openid"), let subject = issue.subject {
            members["id_token"] = .string(try await idToken(issue, subject: subject, accessToken: accessToken, now: now))
        }
        var response = Self.json(members)
        if settings.requiresDPoPNonce { response.headers["dpop-nonce"] = dpopNonce }
        return response
    }

    /// An ID token: `iss`, `sub`, `aud`, `exp`, `iat`, `auth_time`, `nonce` (at sign-in only), `sid`, `at_hash`,
    /// and the user's claims for `profile` and `email` (unless ``Settings/userClaimsInIDTokens`` is false).
    private func idToken(_ issue: Issue, subject: String, accessToken: String, now: Date) async throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer.absoluteString), "sub": .string(subject), "aud": .string(issue.clientID),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number(now.addingTimeInterval(settings.idTokenLifetime).timeIntervalSince1970.rounded(.down)),
            "at_hash": .string(Self.accessTokenHash(accessToken, signedWith: keys[0].algorithm)),
        ]
        if let nonce = issue.nonce { claims["nonce"] = .string(nonce) }
        if let sessionID = issue.sessionID, !sessionID.isEmpty { claims["sid"] = .string(sessionID) }
        if let authTime = issue.authTime { claims["auth_time"] = .number(authTime.timeIntervalSince1970.rounded(.down)) }
        if let acr = issue.acr { claims["acr"] = .string(acr) }
        if settings.userClaimsInIDTokens { claims.merge(userClaims(subject, scopes: issue.scopes)) { kept, _ in kept } }
        return try await signWithCurrentKey(claims)
    }

    /// `at_hash` (OpenID Connect Core §3.1.3.6): the left half of the access token's hash, with the hash of the ID token's
    /// algorithm: SHA-256 for ES256 and RS256, SHA-512 for EdDSA with Ed25519.
    static func accessTokenHash(_ accessToken: String, signedWith algorithm: JWSAlgorithm) -> String {
        let data = Data(accessToken.utf8)
        let digest = algorithm == .eddsa ? Data(SHA512.hash(data: data)) : Data(SHA256.hash(data: data))
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    /// The user's claims the scopes release: `name` for `profile`, `email` and `email_verified` for `email`.
    func userClaims(_ subject: String, scopes: [String]) -> [String: JSONValue] {
        let all = settings.claims(of: subject)
        var released: [String: JSONValue] = [:]
        for (name, value) in all {
            let scope = name.hasPrefix("email") ? "email" : "profile"
            if scopes.contains(scope) { released[name] = value }
        }
        return released
    }

    /// The audiences a request named, or ``Settings/accessTokenAudience`` when it named none.
    func audience(_ targets: [String]) -> [String] {
        targets.isEmpty ? [settings.accessTokenAudience] : targets
    }

    /// An `aud` claim or member: a string for one audience, an array for several (RFC 7519 §4.1.3).
    static func audienceClaim(_ audience: [String]) -> JSONValue {
        audience.count == 1 ? .string(audience[0]) : .array(audience.map { .string($0) })
    }

    /// Revokes every token one authorization gave.
    func revokeFamily(_ family: String) {
        revokedFamilies.insert(family)
        for (token, grant) in accessTokens where grant.family == family { accessTokens[token]?.revoked = true }
        for (token, grant) in refreshTokens where grant.family == family { refreshTokens[token]?.revoked = true }
    }
}
