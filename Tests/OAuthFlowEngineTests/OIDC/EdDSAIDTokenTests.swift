import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// ID tokens and logout tokens signed with EdDSA on Ed25519 (RFC 8037), verified with a JWKS holding an OKP key;
/// one test per refusal, with tokens really signed.
@Suite struct EdDSAIDTokenTests {
    static let issuer = "https://auth.example.com"
    static let clientID = "client-1"
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    /// A provider whose ID tokens may be signed with `algs` (`security.id_token_algs`).
    func provider(algs: String? = "[EdDSA]") throws -> Provider {
        try TestDescriptor(protocol: .oidc, issuer: Self.issuer, extra: algs.map { "security:\n  id_token_algs: \($0)\n" } ?? "")
            .with(endpoints: [("jwks", Self.issuer + "/jwks")]).provider()
    }

    /// A validator of `provider` whose JWKS is `jwks` (the text of the document).
    func validator(_ provider: Provider, jwks: String) -> IDTokenValidator {
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(jwks.utf8))
        }
        return IDTokenValidator(provider: provider, clientID: Self.clientID, transport: transport, clock: FixedClock(date: now))
    }

    func validator(keys: [[String: String]], algs: String? = "[EdDSA]") throws -> IDTokenValidator {
        validator(try provider(algs: algs), jwks: ProtectionToken.jwks(keys))
    }

    /// The claims of a valid ID token for the sign-in with nonce `nonce-1`.
    func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "sub": .string("user-1"), "aud": .string(Self.clientID), "nonce": .string("nonce-1"),
            "iat": .number(now.timeIntervalSince1970), "exp": .number(now.timeIntervalSince1970 + 600),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// `claims` signed by `key` with header `alg` (its own unless changed) and `kid`, and no `typ`.
    func sign(_ key: ProtectionKey, _ claims: [String: JSONValue], header changes: [String: JSONValue?] = [:]) throws -> Secret {
        var header = changes
        if changes["typ"] == nil { header["typ"] = .some(nil) }
        return Secret(try key.sign(claims, header: header))
    }

    func rejection(_ validator: IDTokenValidator, _ token: Secret, accessToken: String? = nil) async throws -> IDTokenError {
        try await #require(throws: IDTokenError.self) {
            _ = try await validator.validate(token, nonce: Secret("nonce-1"), accessToken: accessToken.map(Secret.init))
        }
    }

    // MARK: - Accepted

    @Test func anEd25519SignedIDTokenVerifiesWhenEdDSAIsListed() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [key.jwk()])
        let hash = IDTokenValidator.accessTokenHash("access-1", algorithm: .eddsa)
        let claims = try await validator.validate(
            try sign(key, claims(["at_hash": .string(hash)])), nonce: Secret("nonce-1"), accessToken: Secret("access-1"))
        #expect(claims.subject == "user-1")
    }

    @Test func anOKPKeyWithoutAnAlgVerifiesEdDSA() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        var entry = key.jwk()
        entry["alg"] = nil
        let validator = try validator(keys: [entry])
        _ = try await validator.validate(try sign(key, claims()), nonce: Secret("nonce-1"), accessToken: nil)
    }

    /// OpenID Connect Core §3.1.3.6 hashes with the hash of the `alg`'s curve: SHA-512 for Ed25519, its left 256 bits.
    @Test func atHashOfAnEdDSATokenIsTheLeftHalfOfSHA512() async throws {
        let expected = Base64URL.encode(Data(SHA512.hash(data: Data("access-1".utf8))).prefix(32))
        #expect(IDTokenValidator.accessTokenHash("access-1", algorithm: .eddsa) == expected)
        #expect(JWSAlgorithm.eddsa.digestBits == 512)
        let key = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [key.jwk()])
        let sha256Half = Base64URL.encode(Data(SHA256.hash(data: Data("access-1".utf8))).prefix(16))
        let token = try sign(key, claims(["at_hash": .string(sha256Half)]))
        #expect(try await rejection(validator, token, accessToken: "access-1").code == .accessTokenHashMismatch)
    }

    @Test func aLogoutTokenSignedWithEdDSAIsVerified() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [key.jwk()])
        var logout = claims(["nonce": nil, "exp": nil, "sid": .string("sid-1"), "jti": .string("j-1")])
        logout["events"] = .object([IDTokenValidator.backChannelLogoutEvent: .object([:])])
        let token = try sign(key, logout, header: ["typ": .string("logout+jwt")])
        let verified = try await validator.validateLogoutToken(token, maximumAge: 120)
        #expect(verified.sessionID == "sid-1")
        let other = try await ProtectionKey.ed25519("ed-1")
        let forged = try sign(other, logout, header: ["typ": .string("logout+jwt")])
        let error = try await #require(throws: IDTokenError.self) { _ = try await validator.validateLogoutToken(forged, maximumAge: 120) }
        #expect(error.code == .badSignature)
    }

    // MARK: - Refused

    @Test func eddsaIsNotAcceptedUnlessListed() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [key.jwk()], algs: nil)
        let error = try await rejection(validator, try sign(key, claims()))
        #expect(error.code == .algorithmNotAllowed)
        #expect(error.message.contains("EdDSA"))
    }

    @Test func anotherEd25519KeysSignatureIsRefused() async throws {
        let published = try await ProtectionKey.ed25519("ed-1")
        let other = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [published.jwk()])
        #expect(try await rejection(validator, try sign(other, claims())).code == .badSignature)
    }

    @Test func aTamperedSignatureIsRefused() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [key.jwk()])
        let parts = try sign(key, claims()).value.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[signature.startIndex] ^= 0x01
        let tampered = Secret([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: "."))
        #expect(try await rejection(validator, tampered).code == .badSignature)
        // A payload changed under the original signature.
        let forged = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(claims(["sub": .string("admin")]))))
        #expect(try await rejection(validator, Secret([parts[0], forged, parts[2]].joined(separator: "."))).code == .badSignature)
    }

    /// An EdDSA header over an ES256 key's signature, and an ES256 header over an Ed25519 key's signature, with both keys
    /// published and both algorithms allowed: neither key verifies the other's algorithm.
    @Test func algorithmConfusionBetweenEdDSAAndES256IsRefused() async throws {
        let ed = try await ProtectionKey.ed25519("ed-1")
        let ec = try await ProtectionKey.es256("ec-1")
        let validator = try validator(keys: [ed.jwk(), ec.jwk()], algs: "[EdDSA, ES256]")
        _ = try await validator.validate(try sign(ed, claims()), nonce: Secret("nonce-1"), accessToken: nil)
        _ = try await validator.validate(try sign(ec, claims()), nonce: Secret("nonce-1"), accessToken: nil)
        let ecAsEdDSA = try sign(ec, claims(), header: ["alg": .string("EdDSA")])
        #expect(try await rejection(validator, ecAsEdDSA).code == .badSignature)
        let edAsES256 = try sign(ed, claims(), header: ["alg": .string("ES256")])
        #expect(try await rejection(validator, edAsES256).code == .badSignature)
        // Named by the other key's kid: still refused.
        let crossed = try sign(ec, claims(), header: ["alg": .string("EdDSA"), "kid": .string("ed-1")])
        #expect(try await rejection(validator, crossed).code == .badSignature)
    }

    /// A key whose `alg` says ES256 never verifies EdDSA, though its type and curve would, and one whose `alg` says EdDSA
    /// never verifies ES256: a key no algorithm fits is no key of the set.
    @Test func aKeysStatedAlgBindsIt() async throws {
        let ed = try await ProtectionKey.ed25519("ed-1")
        var mislabeled = ed.jwk()
        mislabeled["alg"] = "ES256"
        let validator = try validator(keys: [mislabeled], algs: "[EdDSA, ES256]")
        #expect(try await rejection(validator, try sign(ed, claims())).code == .unknownKey)
        let ec = try await ProtectionKey.es256("ec-1")
        var claimsEdDSA = ec.jwk()
        claimsEdDSA["alg"] = "EdDSA"
        let other = try self.validator(keys: [claimsEdDSA], algs: "[EdDSA, ES256]")
        #expect(try await rejection(other, try sign(ec, claims())).code == .unknownKey)
    }

    @Test(arguments: ["Ed448", "X25519", "P-256"])
    func anOKPKeyOnAnotherCurveIsRefusedByName(_ curve: String) async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        var entry = key.jwk()
        entry["crv"] = curve
        let validator = try validator(keys: [entry])
        let error = try await rejection(validator, try sign(key, claims()))
        #expect(error.code == .unknownKey)
        #expect(error.message.contains("`\(curve)`") && error.message.contains("Ed25519"), "\(error.message)")
    }

    @Test func anEd448KeyBesideAnEd25519KeyLeavesTheOtherInUse() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        var ed448 = try await ProtectionKey.ed25519("ed-448").jwk()
        ed448["crv"] = "Ed448"
        let validator = try validator(keys: [ed448, key.jwk()])
        _ = try await validator.validate(try sign(key, claims()), nonce: Secret("nonce-1"), accessToken: nil)
    }

    @Test func aPrivateOKPKeyPublishedByMistakeIsNotUsed() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        var entry = key.jwk()
        entry["d"] = Base64URL.encode(Data(repeating: 1, count: 32))
        let validator = try validator(keys: [entry])
        #expect(try await rejection(validator, try sign(key, claims())).code == .unknownKey)
    }

    /// RFC 7515 §5.2: a header naming `alg` twice is read one way by one parser and another by the next.
    @Test func aRepeatedAlgIsRefused() async throws {
        let key = try await ProtectionKey.ed25519("ed-1")
        let validator = try validator(keys: [key.jwk()], algs: "[EdDSA, ES256]")
        let payload = String(decoding: try JSONEncoder().encode(JSONValue.object(claims())), as: UTF8.self)
        for header in [#"{"alg":"EdDSA","kid":"ed-1","alg":"ES256"}"#, #"{"alg":"ES256","kid":"ed-1","alg":"EdDSA"}"#] {
            let token = Secret(try key.sign(headerText: header, claimsText: payload))
            #expect(try await rejection(validator, token).code == .malformed)
        }
    }
}
