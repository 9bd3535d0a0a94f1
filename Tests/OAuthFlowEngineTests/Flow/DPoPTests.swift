import Crypto
import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// DPoP proofs (RFC 9449 §4) and their sending rules (§8, §9), against a simulated provider, and against scripted
/// servers for the demands it would never make.
@Suite struct DPoPTests {
    /// Verifies a proof as a server would: with the public key it carries, and nothing else.
    static func verify(_ proof: String) async throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
        let (header, claims) = try IDTokenValidator.decodeUnverified(proof)
        guard case let .object(jwk)? = header["jwk"] else { throw FlowError(.dpop, "no jwk") }
        var named = jwk
        named["kid"] = .string("proof")
        let data = try JSONEncoder().encode(JSONValue.object(named))
        let keys = try await JWTKeyCollection().add(jwk: JWK(json: String(decoding: data, as: UTF8.self)))
        struct Unchecked: JWTPayload { func verify(using algorithm: some JWTAlgorithm) throws {} }
        _ = try await keys.verify(proof, as: Unchecked.self, iteratingKeys: true)
        return (header, claims)
    }

    @Test(arguments: [JWSAlgorithm.es256, .rs256, .ps256, .eddsa])
    func proofsCarryWhatRFC9449Asks(_ algorithm: JWSAlgorithm) async throws {
        let key = try DPoPKey.generate(algorithm)
        let token = Secret("an-access-token")
        let url = try #require(URL(string: "https://api.example.com:8443/v1/items?page=2&q=a#frag"))
        let proof = try await key.proof(method: .post, url: url, accessToken: token, nonce: "n-1", now: Date(timeIntervalSince1970: 1_700_000_000))
        let (header, claims) = try await Self.verify(proof)
        #expect(header["typ"]?.stringValue == "dpop+jwt")
        #expect(header["alg"]?.stringValue == algorithm.rawValue)
        guard case let .object(jwk)? = header["jwk"] else { Issue.record("no jwk"); return }
        #expect(jwk["d"] == nil && jwk["p"] == nil, "the private key never leaves")
        #expect(header["kid"] == nil)
        #expect(claims["htm"]?.stringValue == "POST")
        #expect(claims["htu"]?.stringValue == "https://api.example.com:8443/v1/items", "no query, no fragment")
        #expect(claims["iat"]?.numberValue == 1_700_000_000)
        // A whole number of seconds, written as an integer (RFC 9449 §4.2 and servers that read it as one).
        let payload = try #require(Base64URL.decode(String(proof.split(separator: ".")[1])))
        #expect(String(decoding: payload, as: UTF8.self).contains("\"iat\":1700000000") && !String(decoding: payload, as: UTF8.self).contains("1700000000."))
        #expect(claims["nonce"]?.stringValue == "n-1")
        #expect(claims["ath"]?.stringValue == Base64URL.encode(Data(SHA256.hash(data: Data("an-access-token".utf8)))))
        #expect((claims["jti"]?.stringValue?.count ?? 0) >= 22, "128 random bits")
        #expect(!proof.contains("an-access-token"))
    }

    @Test func everyProofHasItsOwnJTI() async throws {
        let key = try DPoPKey.generate()
        let url = try #require(URL(string: "https://as.example.com/token"))
        var seen = Set<String>()
        for _ in 0..<500 {
            let (_, claims) = try IDTokenValidator.decodeUnverified(try await key.proof(method: .post, url: url))
            seen.insert(try #require(claims["jti"]?.stringValue))
        }
        #expect(seen.count == 500)
        let (_, claims) = try IDTokenValidator.decodeUnverified(try await key.proof(method: .post, url: url))
        #expect(claims["ath"] == nil && claims["nonce"] == nil, "a token request's proof has no ath, and no nonce until one is given")
    }

    @Test func thumbprintIsRFC7638s() throws {
        // RFC 7638 §3.1's example key and thumbprint.
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(DPoPKey.thumbprint(of: ["kty": "RSA", "n": n, "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"]) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test func aKeyKeptWithTheTokensComesBackTheSameAndNeverShowsItself() throws {
        let key = try DPoPKey.generate()
        var tokens = TokenSet(
            accessToken: Secret("a"), tokenType: "dpop", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date())
        tokens.proofKey = key
        let decoded = try JSONDecoder().decode(TokenSet.self, from: JSONEncoder().encode(tokens))
        #expect(decoded.proofKey == key && decoded.proofKey?.thumbprint == key.thumbprint)
        #expect(!"\(key)".contains("PRIVATE") && !String(reflecting: tokens).contains("PRIVATE"))
        // A session written before DPoP existed has no key.
        let old = #"{"accessToken":"a","tokenType":"bearer","scopes":[],"issuedAt":0,"additionalFields":{}}"#
        #expect(try JSONDecoder().decode(TokenSet.self, from: Data(old.utf8)).proofKey == nil)
        let tampered = #"{"alg":"ES256","pem":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DPoPKey.self, from: Data(tampered.utf8)) }
    }

    static func nonceDemand(_ status: Int, nonce: String?) -> TransportResponse {
        var headers = ["Content-Type": "application/json"]
        if let nonce { headers["DPoP-Nonce"] = nonce }
        if status == 401 { headers["WWW-Authenticate"] = #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""# }
        return TransportResponse(status: status, headers: headers, body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
    }

    static func nonce(in request: TransportRequest) -> String? {
        guard let proof = request.headers["DPoP"], let (_, claims) = try? IDTokenValidator.decodeUnverified(proof) else { return nil }
        return claims["nonce"]?.stringValue
    }

    /// The simulated provider demands a nonce in every proof: with 400 at its token endpoint (RFC 9449 §8), with 401 at
    /// its userinfo, a resource (§9).
    @Test(arguments: [400, 401])
    func aDemandedNonceIsSentOnceAndRemembered(_ status: Int) async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresDPoPNonce = true
        let simulated = try SimulatedProvider(settings: settings)
        let seen = Recorder()
        let demanded = Recorder()
        let transport = ScriptedTransport { request, _ in
            seen.add(Self.nonce(in: request) ?? "-")
            let response = try await simulated.transport.send(request)
            if response.status != 200 { demanded.add("\(response.status) \(response.header("DPoP-Nonce") ?? "-")") }
            return response
        }
        let key: DPoPKey
        let request: TransportRequest
        let accessToken: Secret?
        if status == 400 {
            // The service's client credentials request.
            key = try DPoPKey.generate()
            let credentials = Data("\(SimulatedProvider.serviceClientID):\(SimulatedProvider.serviceSecret)".utf8).base64EncodedString()
            request = TransportRequest(
                method: .post, url: simulated.issuer.appendingPathComponent("token"),
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic \(credentials)"],
                body: Data("grant_type=client_credentials".utf8))
            accessToken = nil
        } else {
            // A user's DPoP-bound token (its sign-in kept nonces of its own), sent to userinfo.
            var options = SimulatedProvider.DescriptorOptions()
            options.bindsTokensWithDPoP = true
            let tokens = try await Simulated.signIn(try Simulated.appClient(simulated, options), at: simulated).tokens
            key = try #require(tokens.proofKey)
            request = TransportRequest(
                method: .get, url: simulated.issuer.appendingPathComponent("userinfo"), headers: ["Authorization": "DPoP \(tokens.accessToken.value)"])
            accessToken = tokens.accessToken
        }
        let nonces = DPoPNonces()
        let first = try await DPoPSending.send(request, key: key, accessToken: accessToken, nonces: nonces, transport: transport, clock: simulated.clock)
        #expect(first.status == 200)
        let given = try #require(first.header("DPoP-Nonce"))
        #expect(demanded.values == ["\(status) \(given)"], "one demand, naming the nonce")
        #expect(seen.values == ["-", given])
        // The next request to that server carries the nonce at once; another server's does not.
        _ = try await DPoPSending.send(request, key: key, accessToken: accessToken, nonces: nonces, transport: transport, clock: simulated.clock)
        #expect(seen.values == ["-", given, given])
        #expect(nonces.nonce(for: try #require(URL(string: "https://other.example.com/x"))) == nil)
    }

    @Test(arguments: [400, 401])
    func aServerThatAlwaysDemandsANewNonceGetsOneRetry(_ status: Int) async throws {
        let transport = ScriptedTransport { _, n in Self.nonceDemand(status, nonce: "nonce-\(n)") }
        let url = try #require(URL(string: "https://as.example.com/token"))
        let error = await #expect(throws: FlowError.self) {
            _ = try await DPoPSending.send(
                TransportRequest(method: .post, url: url), key: try DPoPKey.generate(), accessToken: nil, nonces: DPoPNonces(), transport: transport,
                clock: SystemDateClock())
        }
        #expect(error?.code == .dpop)
        #expect(error?.message.contains("again after one retry") == true)
        #expect(transport.count("/token") == 2)
    }

    @Test func aNonceDemandWithoutANonceOrWithAnInvalidOneIsNotRetried() async throws {
        for given in [nil, "bad nonce with spaces", String(repeating: "n", count: 600)] {
            let transport = ScriptedTransport { _, _ in Self.nonceDemand(400, nonce: given) }
            let url = try #require(URL(string: "https://as.example.com/token"))
            await #expect(throws: FlowError.self) {
                _ = try await DPoPSending.send(
                    TransportRequest(method: .post, url: url), key: try DPoPKey.generate(), accessToken: nil, nonces: DPoPNonces(), transport: transport,
                    clock: SystemDateClock())
            }
            #expect(transport.count("/token") == 1)
        }
    }

    @Test func resourceRequestsSayDPoPWithAProofAndBearerWithout() async throws {
        let simulated = try SimulatedProvider()
        let headers = Recorder()
        let transport = ScriptedTransport { request, _ in
            headers.add(request.headers["Authorization"] ?? "")
            headers.add(request.headers["DPoP"] == nil ? "no proof" : "proof")
            return try await simulated.transport.send(request)
        }
        var environment = simulated.environment
        environment.transport = transport
        // A user's bearer token and another's DPoP-bound one, sent to the provider's userinfo.
        let bearer = try await Simulated.signIn(try Simulated.appClient(simulated), at: simulated).tokens
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        let bound = try await Simulated.signIn(try Simulated.appClient(simulated, options), at: simulated).tokens
        #expect(bearer.tokenType == "bearer" && bound.tokenType == "dpop" && bound.proofKey != nil)
        let url = simulated.issuer.appendingPathComponent("userinfo")
        let first = try await bearer.send(TransportRequest(method: .get, url: url), environment: environment)
        let second = try await bound.send(TransportRequest(method: .get, url: url), environment: environment)
        #expect(headers.values == ["Bearer \(bearer.accessToken.value)", "no proof", "DPoP \(bound.accessToken.value)", "proof"])
        #expect(first.status == 200 && second.status == 200, "the provider took each as its scheme")
        await #expect(throws: FlowError.self) {
            _ = try await bound.send(TransportRequest(method: .get, url: try #require(URL(string: "http://api.example.com/me"))), environment: environment)
        }
    }
}

/// DPoP on the requests outside a browser sign-in: service tokens, the device grant, revocation.
@Suite struct DPoPGrantTests {
    static func json(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    /// The `jkt` of a request's proof, or "none".
    static func proofKey(_ request: TransportRequest) -> String {
        guard let proof = request.headers["DPoP"], let (header, _) = try? IDTokenValidator.decodeUnverified(proof),
            case let .object(jwk)? = header["jwk"]
        else { return "none" }
        return DPoPKey.thumbprint(of: jwk.compactMapValues(\.stringValue))
    }

    /// DPoP-bound descriptor options for the simulated provider.
    static func dpop() -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        return options
    }

    /// The simulated provider's environment, sending through `transport`.
    static func environment(_ simulated: SimulatedProvider, _ transport: any HTTPTransport) -> OAuthEnvironment {
        var environment = simulated.environment
        environment.transport = transport
        return environment
    }

    @Test func serviceTokensAreBoundAndSentWithProofs() async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresDPoP = true
        let simulated = try SimulatedProvider(settings: settings)
        let seen = Recorder()
        // The provider issues the token; the API takes it.
        let transport = ScriptedTransport { request, _ in
            seen.add("\(request.url.path) \(request.headers["Authorization"]?.prefix(5) ?? "-") \(Self.proofKey(request) == "none" ? "no proof" : "proof")")
            if request.url.host == simulated.issuer.host { return try await simulated.transport.send(request) }
            return TransportResponse(status: 200)
        }
        let client = try Simulated.serviceClient(simulated, Self.dpop(), environment: Self.environment(simulated, transport))
        let tokens = ServiceTokens(client: client, store: InMemoryTokenStore())
        let answer = try await tokens.send(TransportRequest(method: .get, url: URL(string: "https://api.example.com/orders")!))
        #expect(answer.status == 200)
        #expect(seen.values == ["/token Basic proof", "/orders DPoP  proof"])
    }

    @Test func devicePollsAllCarryProofsFromOneKeyAndTheTokensAreBoundToIt() async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresDPoP = true
        let simulated = try SimulatedProvider(settings: settings)
        // The user approves on the second poll: the first is answered authorization_pending.
        await simulated.approveDevices(afterPolls: 2)
        let keys = Recorder()
        let transport = ScriptedTransport { request, _ in
            if request.url.path == "/token" { keys.add(Self.proofKey(request)) }
            return try await simulated.transport.send(request)
        }
        // The provider's clock moves forward instead of waiting between polls.
        let client = try Simulated.appClient(simulated, Self.dpop(), environment: Self.environment(simulated, transport))
        let tokens = try await client.pollDeviceAuthorization(try await client.startDeviceAuthorization())
        #expect(keys.values.count == 2 && Set(keys.values).count == 1 && keys.values[0] != "none")
        #expect(tokens.proofKey?.thumbprint == keys.values[0])
    }

    @Test func revocationCarriesAProofFromTheSessionsKey() async throws {
        let simulated = try SimulatedProvider()
        // A DPoP-bound session: a public client's refresh token is bound to the session's key too (RFC 9449 §5).
        let session = try await Simulated.signIn(try Simulated.appClient(simulated, Self.dpop()), at: simulated).tokens
        let key = try #require(session.proofKey)
        let keys = Recorder()
        let transport = ScriptedTransport { request, _ in
            keys.add(Self.proofKey(request))
            return try await simulated.transport.send(request)
        }
        let client = try Simulated.appClient(simulated, Self.dpop(), environment: Self.environment(simulated, transport))
        try await client.revoke(try #require(session.refreshToken), kind: .refreshToken, proofKey: key)
        try await client.revoke(session.accessToken, kind: .accessToken)
        #expect(keys.values == [key.thumbprint, "none"])
        #expect(try await !Simulated.isActive(session.refreshToken, at: simulated), "the provider revoked the grant")
    }
}

/// Collects strings from concurrent closures.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var values: [String] { lock.withLock { stored } }
    func add(_ value: String) { lock.withLock { stored.append(value) } }
}
