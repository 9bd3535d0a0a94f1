import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

extension Protection {
    /// Bound access tokens at the API: DPoP-bound ones (`cnf.jkt`, RFC 9449 §7) with real proofs made by
    /// ``DPoPKey``, and certificate-bound ones (`cnf.x5t#S256`, RFC 8705 §3).
    @Suite struct DPoPProtectionTests {
        let clock = StoppedClock()
        let server = InProcessAuthorizationServer()
        let issuerKey: ProtectionKey
        let proofKey: DPoPKey
        let url = URL(string: "https://api.example.com/notes/7?view=full")!

        init() async throws {
            issuerKey = try await .es256("es-1")
            proofKey = try DPoPKey.generate()
            server.serveKeys([issuerKey])
        }

        /// The API trusting one provider whose descriptor says `security.dpop: dpop`.
        func api(dpop: String = "if_supported", settings: ProtectedResource.Settings = ProtectionSetup.settings()) throws -> ProtectedResource {
            try ProtectedResource(
                providers: [ProtectionSetup.provider(accessTokens: ["profile": "rfc9068"], more: "security:\n  dpop: \(dpop)\n")],
                settings: settings, environment: OAuthEnvironment(transport: server, clock: clock))
        }

        /// A token bound to `key` (by default the test's proof key).
        func boundToken(to key: DPoPKey? = nil) throws -> String {
            try issuerKey.sign(
                ProtectionToken.claims(now: clock.now(), ["cnf": .object(["jkt": .string((key ?? proofKey).thumbprint)])]))
        }

        func unboundToken() throws -> String { try issuerKey.sign(ProtectionToken.claims(now: clock.now())) }

        /// A proof of `key` for a request to `target` with `token`, made at `issued` (by default now).
        func proof(
            for token: String?, key: DPoPKey? = nil, method: TransportRequest.Method = .get, target: URL? = nil, nonce: String? = nil, issued: Date? = nil
        ) async throws -> String {
            try await (key ?? proofKey).proof(
                method: method, url: target ?? url, accessToken: token.map(Secret.init), nonce: nonce, now: issued ?? clock.now())
        }

        /// A request with the DPoP scheme and `proofs`.
        func request(_ token: String, proofs: [String], method: String = "GET") -> ProtectedResource.Request {
            ProtectedResource.Request(authorization: ["DPoP \(token)"], dpop: proofs, method: method, url: url)
        }

        /// Checks a proof refusal: `invalid_dpop_proof` in the DPoP challenge, with the algorithms accepted.
        func expectProofRefused(_ refusal: ProtectedResource.Denial?, token: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
            expectRefused(refusal, .invalidDPoPProof, status: 401, token: token, scheme: "DPoP", sourceLocation: sourceLocation)
            let dpop = refusal.flatMap { challenge($0, "DPoP") } ?? ""
            #expect(dpop.contains("algs=\"ES256 ES384 ES512 EdDSA RS256 PS256\""), "\(dpop)", sourceLocation: sourceLocation)
            // The Bearer challenge, still offered, does not carry the DPoP error.
            let bearer = refusal.flatMap { challenge($0, "Bearer") } ?? ""
            #expect(!bearer.contains("error="), "\(bearer)", sourceLocation: sourceLocation)
        }

        // MARK: - DPoP-bound tokens

        @Test(arguments: [JWSAlgorithm.es256, .rs256, .ps256, .eddsa])
        func aBoundTokenIsAcceptedWithAProofOfItsKey(_ algorithm: JWSAlgorithm) async throws {
            let key = try DPoPKey.generate(algorithm)
            let api = try api()
            let token = try boundToken(to: key)
            let principal = try await api.authenticate(request(token, proofs: [try await proof(for: token, key: key)]))
            #expect(principal.confirmation?.keyThumbprint == key.thumbprint)
            #expect(principal.confirmation?.certificateThumbprint == nil)
            // Each request brings its own proof; the token itself is remembered.
            let again = try await api.authenticate(request(token, proofs: [try await proof(for: token, key: key)]))
            #expect(again.subject == principal.subject)
            #expect(server.jwksFetches == 1)
        }

        @Test func aProofForAPostToTheSameURLWithAnotherQueryIsAccepted() async throws {
            let api = try api()
            let token = try boundToken()
            let other = URL(string: "https://API.example.com:443/notes/7?view=short#top")!
            let request = ProtectedResource.Request(
                authorization: ["DPoP \(token)"], dpop: [try await proof(for: token, method: .post, target: other)], method: "POST", url: url)
            expectAccepted(await denial(api, request))
        }

        @Test func aBoundTokenSentAsBearerIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            let withoutProof = await denial(api, bearer: token)
            expectRefused(withoutProof, .invalidToken, status: 401, token: token, scheme: "Bearer")
            #expect(withoutProof.flatMap { challenge($0, "DPoP") }?.contains("algs=") == true, "DPoP is offered")
            let withProof = await denial(
                api, ProtectedResource.Request(authorization: ["Bearer \(token)"], dpop: [try await proof(for: token)], method: "GET", url: url))
            expectRefused(withProof, .invalidToken, status: 401, token: token, scheme: "Bearer")
        }

        @Test func aBoundTokenWithoutAProofIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            expectProofRefused(await denial(api, request(token, proofs: [])), token: token)
        }

        @Test func aBoundTokenWithTwoProofsIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            let proofs = [try await proof(for: token), try await proof(for: token)]
            expectProofRefused(await denial(api, request(token, proofs: proofs)), token: token)
        }

        @Test func aProofForAnotherMethodIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            expectProofRefused(await denial(api, request(token, proofs: [try await proof(for: token, method: .post)])), token: token)
            expectProofRefused(await denial(api, request(token, proofs: [try await proof(for: token)], method: "DELETE")), token: token)
        }

        @Test(arguments: [
            "https://api.example.com/notes/8", "https://api.example.com/notes/7/", "https://api.example.com/", "https://other.example.com/notes/7",
            "http://api.example.com/notes/7", "https://api.example.com:8443/notes/7",
        ])
        func aProofForAnotherURLIsRefused(_ target: String) async throws {
            let api = try api()
            let token = try boundToken()
            let proof = try await proof(for: token, target: URL(string: target)!)
            expectProofRefused(await denial(api, request(token, proofs: [proof])), token: token)
        }

        @Test func aProofWithoutTheRequestsURLCannotBeChecked() async throws {
            let api = try api()
            let token = try boundToken()
            let refusal = await denial(
                api, ProtectedResource.Request(authorization: ["DPoP \(token)"], dpop: [try await proof(for: token)], method: "GET", url: nil))
            expectProofRefused(refusal, token: token)
        }

        @Test(arguments: [-61.0, 61.0, -3600.0])
        func aProofMadeOutsideTheWindowIsRefused(_ offset: TimeInterval) async throws {
            let api = try api()
            let token = try boundToken()
            let proof = try await proof(for: token, issued: clock.now().addingTimeInterval(offset))
            expectProofRefused(await denial(api, request(token, proofs: [proof])), token: token)
        }

        @Test(arguments: [-59.0, 59.0])
        func aProofMadeWithinTheWindowIsAccepted(_ offset: TimeInterval) async throws {
            let api = try api()
            let token = try boundToken()
            let proof = try await proof(for: token, issued: clock.now().addingTimeInterval(offset))
            expectAccepted(await denial(api, request(token, proofs: [proof])))
        }

        @Test func aReplayedProofIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            let proof = try await proof(for: token)
            expectAccepted(await denial(api, request(token, proofs: [proof])))
            expectProofRefused(await denial(api, request(token, proofs: [proof])), token: token)
            // Still within twice the window: still remembered.
            clock.advance(59)
            let late = await denial(api, request(token, proofs: [proof]))
            #expect(late?.code == .invalidDPoPProof)
        }

        /// One client sending proofs as fast as it can fills its share of the replay window (a quarter) and is refused;
        /// another client's proofs are still taken. Its proofs are taken again once the first ones expire. (The window
        /// refused everyone once it held 100,000 proofs, whoever sent them.)
        @Test func oneKeyFloodingTheReplayWindowDoesNotShutOutAnother() async throws {
            var settings = ProtectionSetup.settings()
            settings.proofReplayCapacity = 8
            let api = try api(settings: settings)
            let token = try boundToken()
            for _ in 0..<2 { expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token)]))) }
            let refused = await denial(api, request(token, proofs: [try await proof(for: token)]))
            #expect(refused?.code == .invalidDPoPProof && refused?.reason.contains("too many recent proofs") == true, "\(String(describing: refused))")
            let other = try DPoPKey.generate()
            let otherToken = try boundToken(to: other)
            expectAccepted(await denial(api, request(otherToken, proofs: [try await proof(for: otherToken, key: other)])))
            clock.advance(121)
            let later = try boundToken()
            expectAccepted(await denial(api, request(later, proofs: [try await proof(for: later)])))
        }

        /// A proof is held only while it could be accepted (`iat` + the window): a key whose share is full sends again
        /// once its proofs are too old to replay, not a window later.
        @Test func aProofIsHeldOnlyWhileItCouldBeReplayed() async throws {
            var settings = ProtectionSetup.settings()
            settings.proofReplayCapacity = 8
            let api = try api(settings: settings)
            let token = try boundToken()
            for _ in 0..<2 { expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token)]))) }
            #expect(await denial(api, request(token, proofs: [try await proof(for: token)]))?.reason.contains("too many recent proofs") == true)
            clock.advance(62)
            expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token)])))
        }

        @Test func aProofForAnotherTokenIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            let other = try boundToken()
            expectProofRefused(await denial(api, request(token, proofs: [try await proof(for: other)])), token: token)
            // And a proof without `ath`, as for a token request.
            expectProofRefused(await denial(api, request(token, proofs: [try await proof(for: nil)])), token: token)
        }

        @Test func aProofSignedByAnotherKeyIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            let intruder = try DPoPKey.generate()
            expectProofRefused(await denial(api, request(token, proofs: [try await proof(for: token, key: intruder)])), token: token)
        }

        @Test func aProofThatIsNoJWTOrTooLargeIsRefused() async throws {
            let api = try api()
            let token = try boundToken()
            let real = try await proof(for: token)
            let parts = real.split(separator: ".").map(String.init)
            let tampered = [parts[0], try ProtectionToken.encode(["htm": .string("GET")]), parts[2]].joined(separator: ".")
            // The token itself is verified (and remembered) first: what is timed is the proof's refusal.
            expectAccepted(await denial(api, request(token, proofs: [real])))
            let megabyte = String(repeating: "A", count: 1 << 19) + "." + String(repeating: "A", count: 1 << 19) + ".c2ln"
            for proof in ["not-a-jwt", "", String(repeating: "A", count: 1 << 20), megabyte, tampered, parts[0] + "." + parts[1] + "."] {
                let started = ContinuousClock.now
                let refusal = await denial(api, request(token, proofs: [proof]))
                expectProofRefused(refusal, token: token)
                // A bound against a hang, not a timing: the suite shares two cores, where one await has waited 30 s.
                #expect(ContinuousClock.now - started < .seconds(90))
                // A proof of a megabyte is refused for its size, before anything of it is decoded.
                if proof.utf8.count > 1 << 19 {
                    #expect(refusal?.reason.contains("larger than") == true, "\(String(describing: refusal?.reason))")
                }
            }
        }

        @Test func aProofWhoseKeyIsPrivateOrSymmetricIsRefused() async throws {
            let api = try api()
            let signing = P256.Signing.PrivateKey()
            let raw = signing.publicKey.rawRepresentation
            var jwk: [String: JSONValue] = [
                "kty": .string("EC"), "crv": .string("P-256"), "x": .string(Base64URL.encode(raw.prefix(32))),
                "y": .string(Base64URL.encode(raw.suffix(32))),
            ]
            let thumbprint = DPoPKey.thumbprint(of: jwk.compactMapValues(\.stringValue))
            let bound = try issuerKey.sign(ProtectionToken.claims(now: clock.now(), ["cnf": .object(["jkt": .string(thumbprint)])]))
            func proof(_ jwk: [String: JSONValue], typ: String = "dpop+jwt", alg: String = "ES256") throws -> String {
                let claims: [String: JSONValue] = [
                    "jti": .string(Base64URL.random(bytes: 16)), "htm": .string("GET"), "htu": .string("https://api.example.com/notes/7"),
                    "iat": .number(clock.now().timeIntervalSince1970),
                    "ath": .string(Base64URL.encode(Data(SHA256.hash(data: Data(bound.utf8))))),
                ]
                let input =
                    try ProtectionToken.encode(["typ": .string(typ), "alg": .string(alg), "jwk": .object(jwk)]) + "." + ProtectionToken.encode(claims)
                let signature = try signing.signature(for: Data(input.utf8)).rawRepresentation
                return input + "." + Base64URL.encode(signature)
            }
            // Made by hand, the proof is accepted: what follows is refused for its one difference.
            expectAccepted(await denial(api, request(bound, proofs: [try proof(jwk)])))
            expectProofRefused(await denial(api, request(bound, proofs: [try proof(jwk, typ: "JWT")])), token: bound)
            expectProofRefused(await denial(api, request(bound, proofs: [try proof(jwk, alg: "HS256")])), token: bound)
            expectProofRefused(await denial(api, request(bound, proofs: [try proof(jwk, alg: "none")])), token: bound)
            jwk["d"] = .string(Base64URL.encode(signing.rawRepresentation))
            expectProofRefused(await denial(api, request(bound, proofs: [try proof(jwk)])), token: bound)
        }

        @Test func anUnboundTokenWithTheDPoPSchemeIsRefused() async throws {
            let api = try api()
            let token = try unboundToken()
            let refusal = await denial(api, request(token, proofs: [try await proof(for: token)]))
            expectRefused(refusal, .invalidToken, status: 401, token: token, scheme: "DPoP")
        }

        @Test func aTokenBoundByAnUnknownMethodIsRefused() async throws {
            let api = try api()
            for cnf: JSONValue in [.object(["x5t": .string("abc")]), .object([:]), .string("jkt"), .object(["jkt": .number(1)])] {
                let token = try issuerKey.sign(ProtectionToken.claims(now: clock.now(), ["cnf": cnf]))
                expectRefused(await denial(api, bearer: token), .invalidToken, status: 401, token: token)
            }
        }

        @Test func aDPoPOnlyAPIRefusesUnboundBearerTokens() async throws {
            let api = try api(settings: ProtectionSetup.settings(dpop: .required))
            let token = try unboundToken()
            let refusal = await denial(api, bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token, scheme: "DPoP")
            #expect(refusal.flatMap { challenge($0, "Bearer") } == nil, "Bearer is not offered")
            // Nor a request without any token: only DPoP is offered.
            let none = await denial(api, ProtectedResource.Request(authorization: nil))
            expectRefused(none, .missingToken, status: 401, token: nil)
            #expect(none?.challenges.count == 1 && none?.challenges.first?.hasPrefix("DPoP ") == true, "\(none?.challenges ?? [])")
            // A bound token with its proof passes.
            let bound = try boundToken()
            expectAccepted(await denial(api, request(bound, proofs: [try await proof(for: bound)])))
        }

        @Test func aCachedBoundTokenStillNeedsAProofEachTime() async throws {
            let api = try api()
            let token = try boundToken()
            expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token)])))
            expectProofRefused(await denial(api, request(token, proofs: [])), token: token)
            expectRefused(await denial(api, bearer: token), .invalidToken, status: 401, token: token)
        }

        @Test func anIntrospectedBoundTokenNeedsItsProofToo() async throws {
            server.answerIntrospection { _, _ in
                let answer: [String: JSONValue] = [
                    "active": .bool(true), "iss": .string(ProtectionToken.issuer), "sub": .string("user-1"),
                    "aud": .string(ProtectionToken.resource), "exp": .number(self.clock.now().timeIntervalSince1970 + 600),
                    "cnf": .object(["jkt": .string(self.proofKey.thumbprint)]),
                ]
                return TransportResponse(
                    status: 200, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(JSONValue.object(answer)))
            }
            let provider = try ProtectionSetup.provider(
                introspection: ProtectionToken.issuer + "/introspect", accessTokens: ["format": "opaque"],
                more: "client_auth:\n  methods: [client_secret_basic]\n")
            let api = try ProtectedResource(
                providers: [provider], settings: ProtectionSetup.settings(),
                introspectionClients: ["example": ProtectionSetup.introspectionClient], environment: OAuthEnvironment(transport: server, clock: clock))
            let token = "opaque-bound-1"
            let principal = try await api.authenticate(request(token, proofs: [try await proof(for: token)]))
            #expect(principal.source == .introspection && principal.confirmation?.keyThumbprint == proofKey.thumbprint)
            expectRefused(await denial(api, bearer: token), .invalidToken, status: 401, token: token)
            expectProofRefused(await denial(api, request(token, proofs: [])), token: token)
            #expect(server.introspections == 1)
        }

        // MARK: - Nonces

        @Test func aProofWithoutTheResourcesNonceIsAnsweredWithOne() async throws {
            let api = try api(settings: ProtectionSetup.settings(nonces: ProtectedResource.DPoPNonceSource()))
            let token = try boundToken()
            let refusal = await denial(api, request(token, proofs: [try await proof(for: token)]))
            expectRefused(refusal, .useDPoPNonce, status: 401, token: token, scheme: "DPoP")
            let nonce = try #require(refusal?.headers.first { $0.name == "DPoP-Nonce" }?.value)
            #expect(!nonce.isEmpty)
            expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token, nonce: nonce)])))
            // A made-up nonce is answered with the current one again.
            let madeUp = await denial(api, request(token, proofs: [try await proof(for: token, nonce: "made-up")]))
            expectRefused(madeUp, .useDPoPNonce, status: 401, token: token, scheme: "DPoP")
            #expect(madeUp?.headers.first { $0.name == "DPoP-Nonce" }?.value == nonce)
        }

        @Test func anOldNonceIsRefusedAndANewOneGiven() async throws {
            let api = try api(settings: ProtectionSetup.settings(nonces: ProtectedResource.DPoPNonceSource(slot: 60)))
            let token = try boundToken()
            let first = await denial(api, request(token, proofs: [try await proof(for: token)]))
            let nonce = try #require(first?.headers.first { $0.name == "DPoP-Nonce" }?.value)
            expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token, nonce: nonce)])))
            // A nonce stays current for its slot and the next, not longer.
            clock.advance(121)
            let stale = await denial(api, request(token, proofs: [try await proof(for: token, nonce: nonce)]))
            expectRefused(stale, .useDPoPNonce, status: 401, token: token, scheme: "DPoP")
            let newer = try #require(stale?.headers.first { $0.name == "DPoP-Nonce" }?.value)
            #expect(newer != nonce)
            expectAccepted(await denial(api, request(token, proofs: [try await proof(for: token, nonce: newer)])))
        }

        // MARK: - When no provider declares DPoP

        @Test func aProofRefusalNamesItsErrorEvenWhenNoProviderDeclaresDPoP() async throws {
            // The provider's descriptor says `dpop: never`, yet its token is bound: the API checks the proof,
            // and its refusal must still tell the client what is wrong (RFC 9449 §7.1, §9).
            let api = try api(dpop: "never", settings: ProtectionSetup.settings(nonces: ProtectedResource.DPoPNonceSource()))
            let token = try boundToken()
            let missing = await denial(api, request(token, proofs: []))
            expectRefused(missing, .invalidDPoPProof, status: 401, token: token, scheme: "DPoP")
            let nonce = await denial(api, request(token, proofs: [try await proof(for: token)]))
            expectRefused(nonce, .useDPoPNonce, status: 401, token: token, scheme: "DPoP")
        }

        // MARK: - Certificate-bound tokens

        @Test func aCertificateBoundTokenIsAcceptedOnlyWithItsCertificate() async throws {
            let api = try api(dpop: "never")
            let certificate = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let thumbprint = Base64URL.encode(Data(SHA256.hash(data: certificate)))
            let token = try issuerKey.sign(ProtectionToken.claims(now: clock.now(), ["cnf": .object(["x5t#S256": .string(thumbprint)])]))
            let principal = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)", clientCertificate: certificate))
            #expect(principal.confirmation?.certificateThumbprint == thumbprint)
            expectRefused(await denial(api, ProtectedResource.Request(authorization: "Bearer \(token)")), .invalidToken, status: 401, token: token)
            var other = certificate
            other[100] ^= 1
            expectRefused(
                await denial(api, ProtectedResource.Request(authorization: "Bearer \(token)", clientCertificate: other)), .invalidToken, status: 401, token: token
            )
            expectRefused(
                await denial(api, ProtectedResource.Request(authorization: "Bearer \(token)", clientCertificate: [])), .invalidToken, status: 401, token: token)
            // Remembered, it is still matched to each connection's certificate.
            expectRefused(await denial(api, ProtectedResource.Request(authorization: "Bearer \(token)")), .invalidToken, status: 401, token: token)
            expectAccepted(await denial(api, ProtectedResource.Request(authorization: "Bearer \(token)", clientCertificate: certificate)))
        }
    }
}
