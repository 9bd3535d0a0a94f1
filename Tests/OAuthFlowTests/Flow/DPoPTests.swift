import Crypto
import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// DPoP proofs (RFC 9449 §4) and their sending rules (§8, §9), against scripted servers.
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

    @Test(arguments: [JWSAlgorithm.es256, .rs256, .ps256])
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

    @Test(arguments: [400, 401])
    func aDemandedNonceIsSentOnceAndRemembered(_ status: Int) async throws {
        let seen = Recorder()
        let transport = ScriptedTransport { request, _ in
            seen.add(Self.nonce(in: request) ?? "-")
            if Self.nonce(in: request) == "server-nonce-1" { return TransportResponse(status: 200, headers: ["DPoP-Nonce": "server-nonce-1"], body: Data("{}".utf8)) }
            return Self.nonceDemand(status, nonce: "server-nonce-1")
        }
        let key = try DPoPKey.generate()
        let nonces = DPoPNonces()
        let url = try #require(URL(string: "https://rs.example.com/things"))
        let request = TransportRequest(method: .get, url: url)
        let first = try await DPoPSending.send(request, key: key, accessToken: Secret("t"), nonces: nonces, transport: transport, clock: SystemDateClock())
        #expect(first.status == 200)
        #expect(seen.values == ["-", "server-nonce-1"])
        // The next request to that server carries the nonce at once; another server's does not.
        _ = try await DPoPSending.send(request, key: key, accessToken: Secret("t"), nonces: nonces, transport: transport, clock: SystemDateClock())
        #expect(seen.values == ["-", "server-nonce-1", "server-nonce-1"])
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
        let headers = Recorder()
        let transport = ScriptedTransport { request, _ in
            headers.add(request.headers["Authorization"] ?? "")
            headers.add(request.headers["DPoP"] == nil ? "no proof" : "proof")
            return TransportResponse(status: 200)
        }
        let url = try #require(URL(string: "https://api.example.com/me"))
        var tokens = TokenSet(
            accessToken: Secret("tok"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date())
        _ = try await tokens.send(TransportRequest(method: .get, url: url), environment: OAuthEnvironment(transport: transport))
        tokens.tokenType = "dpop"
        tokens.proofKey = try DPoPKey.generate()
        _ = try await tokens.send(TransportRequest(method: .get, url: url), environment: OAuthEnvironment(transport: transport))
        #expect(headers.values == ["Bearer tok", "no proof", "DPoP tok", "proof"])
        await #expect(throws: FlowError.self) {
            _ = try await tokens.send(TransportRequest(method: .get, url: try #require(URL(string: "http://api.example.com/me"))), environment: OAuthEnvironment(transport: transport))
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

    @Test func serviceTokensAreBoundAndSentWithProofs() async throws {
        let seen = Recorder()
        let transport = ScriptedTransport { request, _ in
            seen.add("\(request.url.path) \(request.headers["Authorization"]?.prefix(5) ?? "-") \(Self.proofKey(request) == "none" ? "no proof" : "proof")")
            if request.url.path == "/token" { return Self.json(200, #"{"access_token":"svc","token_type":"DPoP","expires_in":300}"#) }
            return TransportResponse(status: 200)
        }
        let provider = try TestDescriptor(
            extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [client_secret_basic]\nsecurity:\n  dpop: required\n"
        ).provider()
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc", clientSecret: Secret("s")), environment: OAuthEnvironment(transport: transport))
        let tokens = ServiceTokens(client: client, store: InMemoryTokenStore())
        let answer = try await tokens.send(TransportRequest(method: .get, url: URL(string: "https://api.example.com/orders")!))
        #expect(answer.status == 200)
        #expect(seen.values == ["/token Basic proof", "/orders DPoP  proof"])
    }

    @Test func devicePollsAllCarryProofsFromOneKeyAndTheTokensAreBoundToIt() async throws {
        let keys = Recorder()
        let transport = ScriptedTransport { request, n in
            if request.url.path == "/device" {
                return Self.json(200, #"{"device_code":"dc","user_code":"ABCD","verification_uri":"https://auth.example.com/activate","expires_in":600,"interval":1}"#)
            }
            keys.add(Self.proofKey(request))
            return n == 1
                ? Self.json(400, #"{"error":"authorization_pending"}"#)
                : Self.json(200, #"{"access_token":"at","token_type":"DPoP","expires_in":300}"#)
        }
        let provider = try TestDescriptor(
            extra: "grant_types: [urn:ietf:params:oauth:grant-type:device_code]\nsecurity:\n  dpop: required\n"
        ).with(endpoints: [("device_authorization", "https://auth.example.com/device")]).provider()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "tv", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport, clock: NoWait()))
        let tokens = try await client.pollDeviceAuthorization(try await client.startDeviceAuthorization())
        #expect(keys.values.count == 2 && Set(keys.values).count == 1 && keys.values[0] != "none")
        #expect(tokens.proofKey?.thumbprint == keys.values[0])
    }

    @Test func revocationCarriesAProofFromTheSessionsKey() async throws {
        let keys = Recorder()
        let transport = ScriptedTransport { request, _ in
            keys.add(Self.proofKey(request))
            return TransportResponse(status: 200)
        }
        let provider = try TestDescriptor().with(endpoints: [("revocation", "https://auth.example.com/revoke")]).provider()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
        let key = try DPoPKey.generate()
        try await client.revoke(Secret("rt"), kind: .refreshToken, proofKey: key)
        try await client.revoke(Secret("at"), kind: .accessToken)
        #expect(keys.values == [key.thumbprint, "none"])
    }

    /// The real time, with no wait between polls.
    struct NoWait: DateClock {
        func now() -> Date { Date() }
        func sleep(seconds: TimeInterval) async throws {}
    }
}

/// Collects strings from concurrent closures.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var values: [String] { lock.withLock { stored } }
    func add(_ value: String) { lock.withLock { stored.append(value) } }
}
