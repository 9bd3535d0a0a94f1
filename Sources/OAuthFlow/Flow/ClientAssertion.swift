import Foundation
import JWTKit

/// The JWT a client authenticates with under `client_secret_jwt` and `private_key_jwt`
/// (RFC 7523 §2.2 and §3, OpenID Connect Core §9).
///
/// Each one is new: `iss` and `sub` are the client id, `aud` the issuer or the token endpoint (the
/// descriptor's `client_auth.assertion_audience`), `jti` 128 random bits, `iat` now and `exp` at most
/// ``maximumLifetime`` later. None is ever reused or stored.
public enum ClientAssertion {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion lives: a minute (RFC 7523 §3 asks for a short life; servers reject long ones).
    public static let maximumLifetime: TimeInterval = 60

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var jti: IDClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A signed assertion for `clientID`, to `audience`, valid from `now` for `lifetime` seconds (capped at a minute).
    ///
    /// - Parameters:
    ///   - key: The private key (`private_key_jwt`); nil signs with `secret` (`client_secret_jwt`, HS256).
    /// - Throws: ``FlowError`` `clientAuthentication` when neither is given or signing fails.
    public static func make(
        clientID: String, audience: String, key: ClientSigningKey?, secret: Secret?, now: Date,
        lifetime: TimeInterval = maximumLifetime
    ) async throws -> Secret {
        let claims = Claims(
            iss: IssuerClaim(value: clientID), sub: SubjectClaim(value: clientID), aud: AudienceClaim(value: [audience]),
            jti: IDClaim(value: randomIdentifier()), iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: now.addingTimeInterval(min(max(1, lifetime), maximumLifetime))))
        do {
            if let key {
                var header = JWTHeader()
                header.typ = "JWT"
                header.alg = key.algorithm.rawValue
                if let thumbprint = key.certificateThumbprint { header.x5tS256 = thumbprint }
                let keys = try await key.signer()
                return Secret(try await keys.sign(claims, kid: key.keyID.map { JWKIdentifier(string: $0) }, header: header))
            }
            guard let secret else {
                throw FlowError(.missingClientSecret, "client_secret_jwt signs with the client secret, and none was given")
            }
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: secret.value), digestAlgorithm: .sha256)
            var header = JWTHeader()
            header.typ = "JWT"
            return Secret(try await keys.sign(claims, header: header))
        } catch let error as FlowError {
            throw error
        } catch {
            throw FlowError(.clientAuthentication, "the client assertion could not be signed (\(Swift.type(of: error)))")
        }
    }

    /// 128 random bits, base64url: a `jti` no two assertions share.
    static func randomIdentifier() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(Data(bytes))
    }
}
