import Crypto
import Foundation
import JWTKit

/// The claims of a validated ID token.
public struct IDTokenClaims: Sendable, Hashable {
    public let issuer: String
    public let subject: String
    public let audiences: [String]
    public let expiresAt: Date
    public let issuedAt: Date
    public let nonce: String?
    public let authorizedParty: String?
    /// Every claim, as it came.
    public let all: [String: JSONValue]
}

/// Verifies ID tokens (OpenID Connect Core §3.1.3.7) with jwt-kit.
///
/// - Keys come from the provider's JWKS, cached, and fetched again once when a
///   token names an unknown `kid`.
/// - `alg` must be in the provider's ``ProviderPolicy/idTokenAlgorithms`` (RS256 and ES256
///   by default); `none` is always refused; HS256 only when listed, verified with the
///   client secret.
/// - The provider must be the discovered one (``Provider/discovered(with:logger:)``) when its
///   JWKS endpoint comes from discovery: the validator fetches keys, never the discovery document.
/// - `iss` must equal the issuer; `aud` must contain the client id, and `azp` must
///   be the client id when there are several audiences; `exp` and `iat` are checked
///   with a leeway; `nonce` must equal the request's; `at_hash`, when present,
///   must match the access token.
public actor IDTokenValidator {
    public let leeway: TimeInterval
    private let provider: Provider
    private let clientID: String
    private let clientSecret: Secret?
    private let transport: any HTTPTransport
    private let clock: any DateClock
    private var keys: KeySet?
    private var lastRefetch: Date?

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
        let (header, claims) = try Self.decodeUnverified(token.value)
        let algorithm = try checkHeader(header)
        try await verifySignature(token.value, algorithm: algorithm, keyID: header["kid"]?.stringValue)
        return try checkClaims(claims, algorithm: algorithm, nonce: nonce, accessToken: accessToken)
    }

    /// Checks the JOSE header: an allowed `alg`, and no `crit` extension (RFC 7515 §4.1.11).
    ///
    /// - Returns: The algorithm.
    private func checkHeader(_ header: [String: JSONValue]) throws -> JWSAlgorithm {
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
        let (header, claims) = try Self.decodeUnverified(token.value)
        let algorithm = try checkHeader(header)
        try await verifySignature(token.value, algorithm: algorithm, keyID: header["kid"]?.stringValue)
        let issuer = claims["iss"]?.stringValue ?? ""
        guard provider.isIDTokenIssuer(issuer, claims: claims) else {
            throw IDTokenError(
                .issuerMismatch, "the token was issued by `\(issuer)`, not `\(provider.issuer?.absoluteString ?? "(no issuer declared)")`")
        }
        if let expiry = claims["exp"]?.numberValue, expiry + leeway <= clock.now().timeIntervalSince1970 {
            throw IDTokenError(.expired, "the token expired at \(Date(timeIntervalSince1970: expiry))")
        }
        try checkNotBefore(claims)
        return claims
    }

    /// Checks an ID token kept from an earlier sign-in or refresh, before its claims are shown or mapped:
    /// the algorithm, signature, issuer, audience and subject, as when it was issued. Its expiry and nonce
    /// are not checked again: the token records a sign-in that was checked then; it is no credential.
    public func validateStored(_ token: Secret) async throws -> IDTokenClaims {
        let (header, claims) = try Self.decodeUnverified(token.value)
        let algorithm = try checkHeader(header)
        try await verifySignature(token.value, algorithm: algorithm, keyID: header["kid"]?.stringValue)
        return try checkClaims(claims, algorithm: algorithm, nonce: nil, accessToken: nil, checkingTimes: false)
    }

    /// Checks a refreshed ID token: valid, and about the same subject (OpenID Connect Core §12.2).
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
        return claims
    }

    // MARK: - Signature

    private func verifySignature(_ token: String, algorithm: JWSAlgorithm, keyID: String?) async throws {
        if algorithm.isHMAC {
            guard let clientSecret else {
                throw IDTokenError(.keysUnavailable, "an \(algorithm) ID token is verified with the client secret, and none is configured")
            }
            let (digest, bytes): (DigestAlgorithm, Int) =
                switch algorithm.digestBits {
                case 384: (.sha384, 48)
                case 512: (.sha512, 64)
                default: (.sha256, 32)
                }
            // RFC 7518 §3.2: the key must be at least as long as the hash (jwt-kit traps otherwise).
            guard clientSecret.value.utf8.count >= bytes else {
                throw IDTokenError(
                    .keysUnavailable,
                    "the client secret is shorter than the \(bytes) bytes \(algorithm) needs (RFC 7518 §3.2); refusing to verify with it")
            }
            let collection = JWTKeyCollection()
            await collection.add(hmac: HMACKey(from: clientSecret.value), digestAlgorithm: digest)
            try await verify(token, with: collection, iterating: false, algorithm: algorithm)
            return
        }
        let keys = try await keySet(for: keyID)
        if let keyID, keys.named.contains(keyID) {
            try await verify(token, with: keys.collection, iterating: false, algorithm: algorithm)
        } else {
            // No `kid` in the token, or one that only an unnamed key can match: every candidate is tried.
            try await verify(token, with: keys.collection, iterating: true, algorithm: algorithm)
        }
    }

    private func verify(_ token: String, with collection: JWTKeyCollection, iterating: Bool, algorithm: JWSAlgorithm) async throws {
        do {
            _ = try await collection.verify(token, as: SignatureOnly.self, iteratingKeys: iterating)
        } catch {
            throw IDTokenError(.badSignature, "the ID token's signature does not verify (\(algorithm))")
        }
    }

    /// The provider's signing keys as jwt-kit holds them, and which of them carry a `kid`.
    private struct KeySet {
        let collection: JWTKeyCollection
        let named: Set<String>
        let unnamedCount: Int
    }

    /// The JWKS, fetched on first use and fetched again when a token names a `kid` it lacks.
    ///
    /// The second fetch is what lets a signing-key rotation through, also on a process's
    /// first sign-in (its first fetch may come from a cache that predates the rotation).
    /// It happens at most once per ``keyRefetchInterval``, so a stream of tokens with
    /// made-up `kid`s cannot turn into a stream of requests.
    private func keySet(for keyID: String?) async throws -> KeySet {
        if let keys, keyID.map(keys.named.contains) ?? true { return keys }
        let current: KeySet
        if let keys {
            current = keys
        } else {
            current = try await fetchKeys()
        }
        guard let keyID, !current.named.contains(keyID) else { return current }
        let due = lastRefetch.map { clock.now().timeIntervalSince($0) >= Self.keyRefetchInterval } ?? true
        var latest = current
        if due {
            lastRefetch = clock.now()
            latest = try await fetchKeys()
        }
        guard latest.named.contains(keyID) || latest.unnamedCount > 0 else {
            throw IDTokenError(.unknownKey, "the ID token names key `\(keyID)`, which is not in the JWKS of `\(provider.id)`")
        }
        return latest
    }

    /// The shortest time between two fetches of the JWKS caused by unknown key ids.
    public static let keyRefetchInterval: TimeInterval = 60

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

    private func fetchKeys() async throws -> KeySet {
        let url = try keysURL()
        guard TransportPolicy.isSecure(url) else { throw IDTokenError(.keysUnavailable, TransportPolicy.refusal(url)) }
        let fetched: (document: [String: JSONValue]?, response: HTTPResponse)
        do {
            fetched = try await transport.fetchJSON(url, as: [String: JSONValue].self)
        } catch {
            throw IDTokenError(.keysUnavailable, "cannot fetch the JWKS \(url.absoluteString): \(error)")
        }
        guard case let .array(entries)? = fetched.document?["keys"] else {
            throw IDTokenError(.keysUnavailable, "\(url.absoluteString) did not answer with a JWKS (HTTP \(fetched.response.status))")
        }
        let collection = JWTKeyCollection()
        var named: Set<String> = []
        var unnamed = 0
        for (index, entry) in entries.enumerated() {
            // Signing keys only. `kid` is optional (RFC 7517 §4.5), but jwt-kit files keys by it,
            // so an unnamed key gets a name no token can claim.
            guard case var .object(fields) = entry, fields["use"]?.stringValue ?? "sig" == "sig" else { continue }
            let kid = fields["kid"]?.stringValue
            if kid == nil { fields["kid"] = .string("\u{0}unnamed-\(index)") }
            guard let data = try? JSONEncoder().encode(JSONValue.object(fields)), let jwk = try? JSONDecoder().decode(JWK.self, from: data),
                (try? await collection.add(jwk: jwk)) != nil
            else {
                // A key type jwt-kit cannot load is skipped; a token naming it then fails as `unknown_key`.
                continue
            }
            if let kid { named.insert(kid) } else { unnamed += 1 }
        }
        let keys = KeySet(collection: collection, named: named, unnamedCount: unnamed)
        self.keys = keys
        return keys
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
        let audiences: [String] =
            switch claims["aud"] {
            case let .string(single)?: [single]
            case let .array(many)?: many.compactMap(\.stringValue)
            default: []
            }
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
        let missingTimes = ["exp", "iat"].filter { claims[$0]?.numberValue == nil }
        guard let expiry = claims["exp"]?.numberValue, let issued = claims["iat"]?.numberValue else {
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
        if let nonce {
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
    private func checkNotBefore(_ claims: [String: JSONValue]) throws {
        guard let notBefore = claims["nbf"] else { return }
        guard let seconds = notBefore.numberValue, seconds.isFinite else {
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
    public static let maximumClaimDepth = 32

    /// Header and claims of a JWT, without verifying anything.
    ///
    /// - Throws: ``IDTokenError`` `malformed`.
    public static func decodeUnverified(_ token: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw IDTokenError(.malformed, "a JWT has three dot-separated parts; this has \(parts.count)") }
        func object(_ part: Substring, _ name: String) throws -> [String: JSONValue] {
            guard let data = Base64URL.decode(String(part)),
                let value = try? JSONDecoder().decode([String: JSONValue].self, from: data)
            else {
                throw IDTokenError(.malformed, "the JWT \(name) is not base64url-encoded JSON")
            }
            guard JSONValue.object(value).depth <= maximumClaimDepth else {
                throw IDTokenError(.malformed, "the JWT \(name) nests deeper than \(maximumClaimDepth) levels")
            }
            return value
        }
        return (try object(parts[0], "header"), try object(parts[1], "payload"))
    }

    /// jwt-kit needs a payload type; claims are checked above, with typed errors.
    private struct SignatureOnly: JWTPayload {
        func verify(using algorithm: some JWTAlgorithm) throws {}

        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }
}
