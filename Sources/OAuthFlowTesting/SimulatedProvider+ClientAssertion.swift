import Crypto
import CryptoExtras
import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The client a JWT client assertion authenticates (RFC 7523 §3, OpenID Connect Core §9): `iss` and `sub` are a
    /// registered client that authenticates this way, the signature verifies (HS256 with its secret for `client_secret_jwt`,
    /// its registered public key for `private_key_jwt`), `aud` names the issuer, the token endpoint or the endpoint at `url`
    /// (RFC 7521 §5.1), `exp` is ahead, `iat` is not, and its `jti` was not used before.
    ///
    /// - Throws: `invalid_client` (401) for an assertion that fails a check; `invalid_request` when `client_id` names another client.
    func authenticateAssertion(_ assertion: String, claimedID: String?, at url: URL) throws -> SimulatedClient {
        func refuse(_ description: String) -> OAuthRefusal { .invalidClient(description, basic: false) }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.decodeJSON(parts[0]), let claims = Self.decodeJSON(parts[1]),
            let signature = Base64URL.decode(String(parts[2]))
        else { throw refuse("the client assertion is not a JWT") }
        guard let subject = claims["sub"]?.stringValue, let client = clients[subject] else {
            throw refuse("the client assertion's sub is no registered client")
        }
        if let claimedID, claimedID != subject { throw OAuthRefusal.invalidRequest("client_id is not the client assertion's sub") }
        guard claims["iss"]?.stringValue == subject else { throw refuse("the client assertion's iss is not the client") }
        let input = Data(parts[0].utf8) + Data(".".utf8) + Data(parts[1].utf8)
        let algorithm = header["alg"]?.stringValue ?? ""
        switch client.authentication {
        case .clientSecretJWT:
            guard algorithm == "HS256", let secret = client.secret,
                HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: SymmetricKey(data: Data(secret.utf8)))
            else { throw refuse("the client assertion is not signed with HS256 and the client's secret") }
        case .privateKeyJWT:
            guard let pem = client.publicKeyPEM, Self.verifies(signature, of: input, algorithm: algorithm, publicKeyPEM: pem) else {
                throw refuse("the client assertion does not verify with the client's registered key")
            }
        default:
            throw refuse("the client authenticates with \(client.authentication.rawValue), not with a client assertion")
        }
        let audiences: [String]
        switch claims["aud"] {
        case let .string(one)?: audiences = [one]
        case let .array(many)?: audiences = many.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(where: [issuer.absoluteString, self.url(.token).absoluteString, url.absoluteString].contains) else {
            throw refuse("the client assertion's aud is not the issuer, the token endpoint or this endpoint")
        }
        let now = clock.now()
        guard let expiry = claims["exp"]?.numberValue, expiry > now.timeIntervalSince1970 else {
            throw refuse("the client assertion has expired or has no exp")
        }
        if let issued = claims["iat"]?.numberValue, issued > now.timeIntervalSince1970 + settings.proofWindow {
            throw refuse("the client assertion was issued in the future")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { throw refuse("the client assertion has no jti") }
        seenAssertions = seenAssertions.filter { $0.value > now }
        guard seenAssertions.updateValue(Date(timeIntervalSince1970: expiry), forKey: "\(subject) \(jti)") == nil else {
            throw refuse("the client assertion was used before")
        }
        return client
    }

    /// Whether `signature` signs `input` under `algorithm` with the public key in `pem`: ES256 with a P-256 key, RS256 or
    /// PS256 with an RSA key, EdDSA with an Ed25519 key.
    static func verifies(_ signature: Data, of input: Data, algorithm: String, publicKeyPEM pem: String) -> Bool {
        switch algorithm {
        case "ES256":
            guard let key = try? P256.Signing.PublicKey(pemRepresentation: pem),
                let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(raw, for: input)
        case "EdDSA":
            guard let key = try? Curve25519.Signing.PublicKey(pemRepresentation: pem) else { return false }
            return key.isValidSignature(signature, for: input)
        case "RS256", "PS256":
            guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) else { return false }
            let padding: _RSA.Signing.Padding = algorithm == "PS256" ? .PSS : .insecurePKCS1v1_5
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: padding)
        default:
            return false
        }
    }
}
