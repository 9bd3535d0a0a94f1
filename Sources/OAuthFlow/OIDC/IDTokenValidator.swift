import Crypto
import Foundation

/// Verifies ID tokens (OpenID Connect Core §3.1.3.7) with jwt-kit.
///
/// Give it the discovered provider (``Provider/discovered(environment:)``) when its JWKS endpoint comes from
/// discovery: it fetches keys, never the discovery document.
public actor IDTokenValidator {
    public let leeway: TimeInterval
    let provider: Provider
    let clientID: String
    private let clientSecret: Secret?
    private let transport: any HTTPTransport
    let clock: any DateClock
    private var signingKeys: SigningKeys?

    public init(
        provider: Provider, clientID: String, clientSecret: Secret? = nil, transport: any HTTPTransport = DefaultHTTPTransport(),
        leeway: TimeInterval = 60, clock: any DateClock = SystemDateClock()
    ) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.transport = transport
        self.leeway = leeway
        self.clock = clock
    }

    /// Validates an ID token.
    ///
    /// - Parameters:
    ///   - token: The compact JWS.
    ///   - nonce: The nonce sent in the authorization request; nil on refresh, where none is required.
    ///   - accessToken: The access token issued with it, for `at_hash`.
    /// - Throws: ``IDTokenError`` naming the first check that failed.
    public func validate(_ token: Secret, nonce: Secret?, accessToken: Secret?) async throws -> IDTokenClaims {
        let jws = try Self.compactJWS(token.value)
        let algorithm = try checkHeader(jws.header)
        try await verifySignature(jws, algorithm: algorithm)
        return try checkClaims(jws.claims, algorithm: algorithm, nonce: nonce, accessToken: accessToken)
    }

    /// Checks the JOSE header: an allowed `alg`, and no `crit` extension (RFC 7515 §4.1.11).
    ///
    /// - Returns: The algorithm.
    func checkHeader(_ header: [String: JSONValue]) throws -> JWSAlgorithm {
        let name = header["alg"]?.stringValue ?? ""
        let allowed = provider.policy.idTokenAlgorithms
        guard let algorithm = JWSAlgorithm(rawValue: name), allowed.contains(algorithm) else {
            let listed = allowed.map(\.rawValue).joined(separator: ", ")
            throw IDTokenError(
                .algorithmNotAllowed,
                "algorithm `\(TerminalText.escaped(String(name.prefix(40))))` is not allowed for `\(provider.id)` (allowed: \(listed))")
        }
        // OAuthFlow understands no JWS extension, so any critical one means "do not accept this token".
        if let critical = header["crit"] {
            throw IDTokenError(
                .unsupportedCriticalHeader,
                "the token's header marks \(critical) as critical, and OAuthFlow understands none of them (RFC 7515 §4.1.11)")
        }
        return algorithm
    }

    /// Checks only what needs no client context: the algorithm, the signature, the issuer and expiry.
    ///
    /// For inspecting a token (`oauthflow jwt decode --verify`) when the audience is not known.
    /// - Returns: The token's claims.
    public func verifySignatureAndIssuer(_ token: Secret) async throws -> [String: JSONValue] {
        let jws = try Self.compactJWS(token.value)
        let claims = jws.claims
        try await verifySignature(jws, algorithm: try checkHeader(jws.header))
        let issuer = claims["iss"]?.stringValue ?? ""
        guard provider.isIDTokenIssuer(issuer, claims: claims) else {
            throw IDTokenError(
                .issuerMismatch, "the token was issued by `\(issuer)`, not `\(provider.issuer?.absoluteString ?? "(no issuer declared)")`")
        }
        if let exp = claims["exp"], exp.numericDate == nil {
            throw IDTokenError(.malformed, "the token's `exp` is not a number of seconds")
        }
        if let expiry = claims["exp"]?.numericDate, expiry + leeway <= clock.now().timeIntervalSince1970 {
            throw IDTokenError(.expired, "the token expired at \(Date(timeIntervalSince1970: expiry))")
        }
        try checkNotBefore(claims)
        return claims
    }

    /// Checks an ID token kept from an earlier sign-in or refresh, before its claims are shown or mapped:
    /// the algorithm, signature, issuer, audience and subject, as when it was issued. Its expiry and nonce
    /// are not checked again: the token records a sign-in that was checked then; it is no credential.
    package func validateStored(_ token: Secret) async throws -> IDTokenClaims {
        let jws = try Self.compactJWS(token.value)
        let algorithm = try checkHeader(jws.header)
        try await verifySignature(jws, algorithm: algorithm)
        return try checkClaims(jws.claims, algorithm: algorithm, nonce: nil, accessToken: nil, checkingTimes: false)
    }

    /// Checks a refreshed ID token: valid, and for the same subject and client as the stored one (OpenID Connect Core
    /// §12.2): the same `sub`, `aud` and `azp`.
    public func validateRefreshed(_ token: Secret, previous: Secret?, accessToken: Secret?) async throws -> IDTokenClaims {
        let claims = try await validate(token, nonce: nil, accessToken: accessToken)
        guard let previous else { return claims }
        // The stored token was verified when it was issued; without its subject there is nothing to hold the new one to.
        guard let (_, old) = try? Self.decodeUnverified(previous.value), let oldSubject = old["sub"]?.stringValue, !oldSubject.isEmpty else {
            throw IDTokenError(
                .subjectMismatch, "the stored ID token names no subject, so the refreshed one cannot be checked against it; sign in again")
        }
        guard oldSubject == claims.subject else {
            throw IDTokenError(.subjectMismatch, "the refreshed ID token is about subject `\(claims.subject)`, not `\(oldSubject)`")
        }
        guard Set(audienceClaim(old) ?? []) == Set(claims.audiences) else {
            throw IDTokenError(.audienceMismatch, "the refreshed ID token's `aud` is not the stored one's")
        }
        guard old["azp"]?.stringValue == claims.authorizedParty else {
            throw IDTokenError(.authorizedPartyMismatch, "the refreshed ID token's `azp` is not the stored one's")
        }
        return claims
    }

    // MARK: - Signature

    func verifySignature(_ jws: CompactJWS, algorithm: JWSAlgorithm, what: String = "ID token") async throws {
        if algorithm.isHMAC {
            guard let clientSecret else {
                throw IDTokenError(.keysUnavailable, "an \(algorithm) \(what) is verified with the client secret, and none is configured")
            }
            // RFC 7518 §3.2: the key must be at least as long as the hash.
            let bytes = algorithm.digestBits / 8
            guard clientSecret.value.utf8.count >= bytes else {
                throw IDTokenError(
                    .keysUnavailable,
                    "the client secret is shorter than the \(bytes) bytes \(algorithm) needs (RFC 7518 §3.2); refusing to verify with it")
            }
            guard await jws.verifiesHMAC(algorithm: algorithm, secret: clientSecret.value) else {
                throw IDTokenError(.badSignature, "the \(what)'s signature does not verify (\(algorithm))")
            }
            return
        }
        let source = try keys()
        let snapshot: SigningKeys.Snapshot
        do {
            snapshot = try await source.snapshot(for: jws.keyID)
        } catch let error as JWTError {
            throw IDTokenError(error)
        }
        if let keyID = jws.keyID, !snapshot.mayVerify(keyID: keyID) {
            if let why = snapshot.refusal(ofKey: keyID) {
                throw IDTokenError(.unknownKey, "the \(what) names key `\(keyID)`, which the JWKS of `\(provider.id)` holds as \(why)")
            }
            throw IDTokenError(.unknownKey, "the \(what) names key `\(keyID)`, which is not in the JWKS of `\(provider.id)`")
        }
        guard snapshot.verifies(jws, algorithm: algorithm) else {
            throw IDTokenError(.badSignature, "the \(what)'s signature does not verify (\(algorithm))")
        }
    }

    /// The provider's JWKS, fetched on first use and fetched again when a token names a `kid` it lacks.
    ///
    /// The second fetch is what lets a signing-key rotation through, also on a process's
    /// first sign-in (its first fetch may come from a cache that predates the rotation).
    /// It happens at most once per ``keyRefetchInterval``, so a stream of tokens with
    /// made-up `kid`s cannot turn into a stream of requests.
    /// Fetches the provider's keys now, when none are cached, so that a later check does not wait for
    /// them; a failure is left for that check to report.
    func prefetchKeys() async {
        _ = try? await keys().snapshot(for: nil)
    }

    private func keys() throws -> SigningKeys {
        if let signingKeys { return signingKeys }
        let created = SigningKeys(
            url: try keysURL(), providerID: provider.id, algorithms: verifiedAlgorithms, transport: transport, clock: clock,
            refetchInterval: Self.keyRefetchInterval)
        signingKeys = created
        return created
    }

    /// The shortest time between two fetches of the JWKS caused by unknown key ids.
    package static let keyRefetchInterval: TimeInterval = 60

    /// The JWKS URL: the descriptor's, or the one its discovery document named (the validator is
    /// given the provider after discovery; it never fetches the document itself).
    private func keysURL() throws -> URL {
        if let url = provider.endpoints.jwks { return url }
        guard provider.isDiscovered else {
            throw IDTokenError(
                .keysUnavailable,
                "provider `\(provider.id)` names no JWKS endpoint and its discovery has not run; validate with `Provider.discovered(with:)`'s result")
        }
        throw IDTokenError(.keysUnavailable, "provider `\(provider.id)` has no JWKS endpoint, in its descriptor or its discovery document")
    }

    // MARK: - Claims

    private func checkClaims(
        _ claims: [String: JSONValue], algorithm: JWSAlgorithm, nonce: Secret?, accessToken: Secret?,
        checkingTimes: Bool = true
    ) throws -> IDTokenClaims {
        let issuer = claims["iss"]?.stringValue ?? ""
        guard provider.isIDTokenIssuer(issuer, claims: claims) else {
            throw IDTokenError(
                .issuerMismatch, "the ID token was issued by `\(issuer)`, not `\(provider.issuer?.absoluteString ?? "(no issuer declared)")`")
        }
        let audiences = audienceClaim(claims) ?? []
        guard audiences.contains(clientID) else {
            throw IDTokenError(.audienceMismatch, "the ID token is for `\(audiences.joined(separator: ", "))`, not this client (`\(clientID)`)")
        }
        let authorizedParty = claims["azp"]?.stringValue
        if audiences.count > 1 || authorizedParty != nil, authorizedParty != clientID {
            throw IDTokenError(.authorizedPartyMismatch, "the ID token's azp is `\(authorizedParty ?? "(missing)")`, not `\(clientID)`")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw IDTokenError(.subjectMissing, "the ID token has no `sub` claim; OpenID Connect Core §2 requires one")
        }
        let missingTimes = ["exp", "iat"].filter { claims[$0]?.numericDate == nil }
        guard let expiry = claims["exp"]?.numericDate, let issued = claims["iat"]?.numericDate else {
            let names = missingTimes.map { "`\($0)`" }.joined(separator: " and ")
            throw IDTokenError(.malformed, "the ID token lacks \(names) (a number of seconds)")
        }
        let current = clock.now().timeIntervalSince1970
        if checkingTimes {
            guard expiry + leeway > current else {
                throw IDTokenError(.expired, "the ID token expired at \(Date(timeIntervalSince1970: expiry))")
            }
            guard issued - leeway <= current else {
                throw IDTokenError(.issuedInFuture, "the ID token claims to be issued in the future (\(Date(timeIntervalSince1970: issued)))")
            }
            try checkNotBefore(claims)
        }
        let tokenNonce = claims["nonce"]?.stringValue
        // A provider declared not to carry the nonce (`security.nonce_echoed: false`, LinkedIn) may leave it out; one
        // a token carries is checked all the same.
        if let nonce, tokenNonce != nil || provider.policy.nonceEchoed {
            guard let tokenNonce else { throw IDTokenError(.nonceMissing, "the ID token has no nonce, but one was sent") }
            guard nonce.constantTimeEquals(tokenNonce) else {
                throw IDTokenError(.nonceMismatch, "the ID token's nonce is not the one sent with this sign-in (replayed token?)")
            }
        }
        if let atHash = claims["at_hash"]?.stringValue, let accessToken {
            guard ConstantTime.equals(atHash, Self.accessTokenHash(accessToken.value, algorithm: algorithm)) else {
                throw IDTokenError(.accessTokenHashMismatch, "the ID token's at_hash does not match the access token (substituted token?)")
            }
        }
        return IDTokenClaims(
            issuer: issuer, subject: subject, audiences: audiences,
            expiresAt: Date(timeIntervalSince1970: expiry), issuedAt: Date(timeIntervalSince1970: issued),
            nonce: tokenNonce, authorizedParty: authorizedParty, all: claims)
    }

    /// `nbf` (RFC 7519 §4.1.5), when present, must have passed (within the leeway).
    func checkNotBefore(_ claims: [String: JSONValue]) throws {
        guard let notBefore = claims["nbf"] else { return }
        guard let seconds = notBefore.numericDate else {
            throw IDTokenError(.malformed, "the ID token's `nbf` is not a number of seconds")
        }
        guard seconds - leeway <= clock.now().timeIntervalSince1970 else {
            throw IDTokenError(.notYetValid, "the ID token is not valid yet: its `nbf` (not before) is \(Date(timeIntervalSince1970: seconds))")
        }
    }

    /// `at_hash`: base64url of the left half of the access token's hash, with the hash of the signing algorithm.
    static func accessTokenHash(_ accessToken: String, algorithm: JWSAlgorithm) -> String {
        let data = Data(accessToken.utf8)
        let digest: [UInt8] =
            switch algorithm.digestBits {
            case 384: Array(SHA384.hash(data: data))
            case 512: Array(SHA512.hash(data: data))
            default: Array(SHA256.hash(data: data))
            }
        return Base64URL.encode(Data(digest.prefix(digest.count / 2)))
    }

    /// How deeply a JWT's header or payload may nest; real claims use two or three levels.
    package static let maximumClaimDepth = CompactJWS.maximumDepth

    /// Header and claims of a JWT, without verifying anything.
    ///
    /// - Throws: ``IDTokenError`` `malformed`.
    public static func decodeUnverified(_ token: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
        let jws = try compactJWS(token)
        return (jws.header, jws.claims)
    }

    /// `token` split and decoded (``CompactJWS``), for the checks of an ID token, a logout token or a JWT-secured response.
    ///
    /// - Throws: ``IDTokenError`` `malformed`, saying which part is wrong.
    static func compactJWS(_ token: String) throws(IDTokenError) -> CompactJWS {
        do {
            return try CompactJWS(token)
        } catch {
            throw IDTokenError(error)
        }
    }
}
