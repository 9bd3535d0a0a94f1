import Foundation

/// The JWT a client authenticates with under `client_secret_jwt` and `private_key_jwt`
/// (RFC 7523 §2.2 and §3, OpenID Connect Core §9).
///
/// Each one is new: `iss` and `sub` are the client id, `aud` the issuer or the token endpoint (the
/// descriptor's `client_auth.assertion_audience`), `jti` 128 random bits, `iat` now and `exp` at most
/// ``maximumLifetime`` later. None is ever reused or stored.
package enum ClientAssertion {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion lives: a minute (RFC 7523 §3 asks for a short life; servers reject long ones).
    public static let maximumLifetime: TimeInterval = 60

    /// A signed assertion for `clientID`, to `audience`, valid from `now` for `lifetime` seconds (capped at a minute).
    ///
    /// - Parameters:
    ///   - key: The private key (`private_key_jwt`); nil signs with `secret` (`client_secret_jwt`, HS256).
    /// - Throws: ``FlowError`` `clientAuthentication` when neither is given or signing fails.
    public static func make(
        clientID: String, audience: String, key: ClientConfiguration.SigningKey?, secret: Secret?, now: Date,
        lifetime: TimeInterval = maximumLifetime
    ) async throws -> Secret {
        let claims = claims(issuer: clientID, subject: clientID, audience: audience, now: now, lifetime: lifetime)
        if let key { return try await sign(claims, with: key) }
        guard let secret else {
            throw FlowError(.missingClientSecret, "client_secret_jwt signs with the client secret, and none was given")
        }
        do {
            return Secret(try await JWSPrivateKey.signHS256(claims, secret: secret.value, type: "JWT"))
        } catch let error as JWTError {
            throw FlowError(
                .clientAuthentication,
                "client_secret_jwt cannot sign with the client secret: \(error.message); ask the provider for a longer secret, or use another client authentication method"
            )
        } catch {
            throw FlowError(.clientAuthentication, "the client assertion could not be signed (\(Swift.type(of: error)))")
        }
    }

    /// An assertion for the JWT bearer grant (RFC 7523 §2.1 and §3): `issuer` vouches for `subject` to `audience`,
    /// with a fresh `jti`, valid from `now` for `lifetime` seconds (capped at a minute).
    ///
    /// ``ServiceTokens/accessToken(subject:issuer:key:scopes:)`` signs these itself, addressed as the descriptor says.
    public static func grant(
        issuer: String, subject: String, audience: String, key: ClientConfiguration.SigningKey, now: Date = Date(),
        lifetime: TimeInterval = maximumLifetime
    ) async throws -> Secret {
        try await sign(claims(issuer: issuer, subject: subject, audience: audience, now: now, lifetime: lifetime), with: key)
    }

    /// A client secret that is a JWT (`client_auth.generated_secret`): `iss` as the descriptor says, `sub` the client
    /// id, `aud`, `iat` now and `exp` `lifetime` later, signed with `key` (its `kid` in the header).
    public static func generatedSecret(
        clientID: String, issuer: String, audience: String, key: ClientConfiguration.SigningKey, now: Date, lifetime: TimeInterval
    ) async throws -> Secret {
        // Whole seconds: NumericDate may carry a fraction, but the providers that ask for these secrets show integers.
        let now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(clientID), "aud": .string(audience),
            "iat": .number(now.timeIntervalSince1970), "exp": .number(now.addingTimeInterval(lifetime).timeIntervalSince1970),
        ]
        return try await sign(claims, with: key, typed: false, what: "client secret")
    }

    /// An assertion's claims: `iss`, `sub`, one `aud`, a fresh `jti`, `iat` now and `exp` at most a minute later.
    private static func claims(issuer: String, subject: String, audience: String, now: Date, lifetime: TimeInterval) -> [String: JSONValue] {
        [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(audience), "jti": .string(randomIdentifier()),
            "iat": .number(now.timeIntervalSince1970),
            "exp": .number(now.addingTimeInterval(min(max(1, lifetime), maximumLifetime)).timeIntervalSince1970),
        ]
    }

    /// `claims` signed with `key`: `alg`, its `kid`, and (for assertions, `typed`) `typ: JWT` and the certificate's `x5t#S256`.
    private static func sign(_ claims: [String: JSONValue], with key: ClientConfiguration.SigningKey, typed: Bool = true, what: String = "assertion")
        async throws -> Secret
    {
        do {
            return Secret(try await key.sign(claims, type: typed ? "JWT" : nil, withThumbprint: typed))
        } catch {
            throw FlowError(.clientAuthentication, "the \(what) could not be signed with the \(key) (\(Swift.type(of: error)))")
        }
    }

    /// 128 random bits, base64url: a `jti` no two assertions share.
    static func randomIdentifier() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(Data(bytes))
    }
}
