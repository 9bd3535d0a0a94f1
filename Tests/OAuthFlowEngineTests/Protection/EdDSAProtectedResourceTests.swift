import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

extension Protection {
    /// JWT access tokens signed with EdDSA on Ed25519 (RFC 8037) at the API, and DPoP proofs made with an Ed25519 key:
    /// accepted where the descriptor allows EdDSA, refused across algorithms, keys and curves.
    @Suite struct EdDSAProtectedResourceTests {
        let clock = StoppedClock()
        let server = InProcessAuthorizationServer()
        let ed: ProtectionKey
        let ec: ProtectionKey
        let url = URL(string: "https://api.example.com/notes/7")!

        init() async throws {
            ed = try await .ed25519("ed-1")
            ec = try await .es256("es-1")
            server.serveKeys([ed, ec])
        }

        /// The API trusting one provider whose `access_tokens.signing_algs` is `algs` (the default when nil).
        func api(algs: String? = "[EdDSA, ES256]", more: String = "") throws -> ProtectedResource {
            var accessTokens = ["profile": "rfc9068"]
            if let algs { accessTokens["signing_algs"] = algs }
            return try ProtectedResource(
                providers: [ProtectionSetup.provider(accessTokens: accessTokens, more: more)], settings: ProtectionSetup.settings(),
                environment: OAuthEnvironment(transport: server, clock: clock))
        }

        func token(_ key: ProtectionKey, _ changes: [String: JSONValue?] = [:], header: [String: JSONValue?] = [:]) throws -> String {
            try key.sign(ProtectionToken.claims(now: clock.now(), changes), header: header)
        }

        @Test func anEdDSATokenIsAcceptedWhenListed() async throws {
            let principal = try await api().authenticate(ProtectedResource.Request(authorization: "Bearer " + token(ed)))
            #expect(principal.subject == "user-1")
            #expect(principal.scopes == ["notes:read", "notes:write"])
        }

        @Test func anEdDSATokenIsRefusedByDefault() async throws {
            let token = try token(ed)
            let refusal = await denial(try api(algs: nil), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("`EdDSA`") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test func anotherEd25519KeysTokenIsRefused() async throws {
            let impostor = try await ProtectionKey.ed25519("ed-1")
            let token = try token(impostor)
            expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
        }

        @Test func aTamperedSignatureIsRefused() async throws {
            let parts = try token(ed).split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[signature.index(before: signature.endIndex)] ^= 0x80
            let token = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("signature") == true, "\(refusal?.reason ?? "accepted")")
        }

        /// Each key verifies only its own algorithm, whichever `kid` and `alg` the header names.
        @Test(arguments: [("ec", "EdDSA", "es-1"), ("ec", "EdDSA", "ed-1"), ("ed", "ES256", "ed-1"), ("ed", "ES256", "es-1")])
        func algorithmConfusionIsRefused(signer: String, alg: String, kid: String) async throws {
            let key = signer == "ed" ? ed : ec
            let token = try token(key, header: ["alg": .string(alg), "kid": .string(kid)])
            expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
        }

        @Test func anEd448KeyIsRefusedByName() async throws {
            var entry = ed.jwk()
            entry["crv"] = "Ed448"
            server.serve(ProtectionToken.jwks([entry]), at: ProtectionToken.issuer + "/jwks")
            let token = try token(ed)
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("`Ed448`") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test func aHeaderWithARepeatedAlgIsRefused() async throws {
            let claims = String(decoding: try JSONEncoder().encode(JSONValue.object(ProtectionToken.claims(now: clock.now()))), as: UTF8.self)
            let token = try ed.sign(headerText: #"{"alg":"EdDSA","kid":"ed-1","typ":"at+jwt","alg":"ES256"}"#, claimsText: claims)
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("more than once") == true, "\(refusal?.reason ?? "accepted")")
        }

        // MARK: - DPoP proofs of an Ed25519 key

        /// A request with the DPoP scheme, `token` bound to `key`, and a proof of `prover`.
        func dpopRequest(bound key: DPoPKey, prover: DPoPKey) async throws -> (ProtectedResource.Request, String) {
            let token = try token(ec, ["cnf": .object(["jkt": .string(key.thumbprint)])])
            let proof = try await prover.proof(method: .get, url: url, accessToken: Secret(token), now: clock.now())
            return (ProtectedResource.Request(authorization: ["DPoP \(token)"], dpop: [proof], method: "GET", url: url), token)
        }

        @Test func aTokenBoundToAnEd25519KeyIsAcceptedWithItsProof() async throws {
            let key = try DPoPKey.generate(.eddsa)
            #expect(key.publicJWK["kty"] == "OKP" && key.publicJWK["crv"] == "Ed25519")
            let (request, _) = try await dpopRequest(bound: key, prover: key)
            let principal = try await api().authenticate(request)
            #expect(principal.confirmation?.keyThumbprint == key.thumbprint)
        }

        @Test func aProofOfAnotherEd25519KeyIsRefused() async throws {
            let (request, token) = try await dpopRequest(bound: try DPoPKey.generate(.eddsa), prover: try DPoPKey.generate(.eddsa))
            let refusal = await denial(try api(), request)
            expectRefused(refusal, .invalidDPoPProof, status: 401, token: token, scheme: "DPoP")
        }

        /// Proofs whose header and key disagree, or whose key is on a curve other than Ed25519, signed with a real Ed25519 key.
        @Test(arguments: [
            (#"{"typ":"dpop+jwt","alg":"ES256","jwk":JWK}"#, "not verify"),
            (#"{"typ":"dpop+jwt","alg":"EdDSA","jwk":ED448}"#, "`Ed448`"),
            (#"{"typ":"dpop+jwt","alg":"EdDSA","jwk":X25519}"#, "`X25519`"),
            (#"{"typ":"dpop+jwt","alg":"EdDSA","jwk":PRIVATE}"#, "private"),
        ])
        func aHostileEd25519ProofIsRefused(header template: String, reason: String) async throws {
            let key = try await ProtectionKey.ed25519("proof")
            let x = try #require(key.publicMembers["x"])
            func jwk(_ curve: String, _ more: String = "") -> String { #"{"kty":"OKP","crv":"\#(curve)","x":"\#(x)"\#(more)}"# }
            let header = template.replacingOccurrences(of: "JWK", with: jwk("Ed25519")).replacingOccurrences(of: "ED448", with: jwk("Ed448"))
                .replacingOccurrences(of: "X25519", with: jwk("X25519")).replacingOccurrences(of: "PRIVATE", with: jwk("Ed25519", #","d":"AAAA""#))
            let jkt = DPoPKey.thumbprint(of: ["kty": "OKP", "crv": "Ed25519", "x": x])
            let token = try token(ec, ["cnf": .object(["jkt": .string(jkt)])])
            let claims: [String: JSONValue] = [
                "htm": .string("GET"), "htu": .string(url.absoluteString), "iat": .number(clock.now().timeIntervalSince1970), "jti": .string("p-1"),
                "ath": .string(Base64URL.encode(Data(SHA256.hash(data: Data(token.utf8))))),
            ]
            let proof = try key.sign(headerText: header, claimsText: String(decoding: try JSONEncoder().encode(JSONValue.object(claims)), as: UTF8.self))
            let request = ProtectedResource.Request(authorization: ["DPoP \(token)"], dpop: [proof], method: "GET", url: url)
            let refusal = await denial(try api(), request)
            expectRefused(refusal, .invalidDPoPProof, status: 401, token: token, scheme: "DPoP")
            #expect(refusal?.reason.contains(reason) == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test func theMetadataAndChallengeOfferEdDSAProofs() async throws {
            let api = try api()
            #expect(api.metadata.dpopSigningAlgorithms?.contains("EdDSA") == true)
        }
    }
}
