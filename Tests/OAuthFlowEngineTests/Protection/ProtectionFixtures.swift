import Crypto
import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing
import _CryptoExtras

import OAuthFlow

/// The suites of API protection (`ProtectedResource`), under one name: `swift test --filter Protection` runs them.
@Suite enum Protection {}

// What the Protection suites share: signing keys of a test authorization server, the tokens they sign,
// an in-process authorization server (JWKS and introspection) that counts what it is asked, and the
// checks every refusal must pass.

/// A signing key of a test authorization server, signing through jwt-kit.
struct ProtectionKey: Sendable {
    let kid: String
    /// `ES256`, `RS256` or `EdDSA`.
    let algorithm: String
    /// The public key as a JWK's members (without `kid`, `alg`, `use`).
    let publicMembers: [String: String]
    /// The public key in PEM (what a confused verifier would take as an HMAC secret).
    let publicPEM: String
    private let signer: any JWTAlgorithm

    private init(kid: String, algorithm: String, publicMembers: [String: String], publicPEM: String, signer: any JWTAlgorithm) {
        self.kid = kid
        self.algorithm = algorithm
        self.publicMembers = publicMembers
        self.publicPEM = publicPEM
        self.signer = signer
    }

    static func es256(_ kid: String) async throws -> ProtectionKey {
        let key = ES256PrivateKey()
        let (x, y) = try #require(key.publicKey.parameters)
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        let signer = try await collection.getKey(for: JWKIdentifier(string: kid))
        return ProtectionKey(
            kid: kid, algorithm: "ES256", publicMembers: ["kty": "EC", "crv": "P-256", "x": x, "y": y],
            publicPEM: key.publicKey.pemRepresentation, signer: signer)
    }

    /// An EdDSA key on Ed25519 (RFC 8037): a JWK `kty: OKP`, `crv: Ed25519`.
    static func ed25519(_ kid: String) async throws -> ProtectionKey {
        let key = try EdDSA.PrivateKey(curve: .ed25519)
        let collection = JWTKeyCollection()
        await collection.add(eddsa: key, kid: JWKIdentifier(string: kid))
        let signer = try await collection.getKey(for: JWKIdentifier(string: kid))
        return ProtectionKey(
            kid: kid, algorithm: "EdDSA", publicMembers: ["kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(key.publicKey.rawRepresentation)],
            publicPEM: key.publicKey.pemRepresentation, signer: signer)
    }

    /// RSA keys take a while to make: the suites share a few.
    private static let rsaBackings: [_RSA.Signing.PrivateKey] = (0..<3).map { _ in
        try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// An RS256 key; `slot` picks one of the shared RSA key pairs (0, 1 or 2).
    static func rs256(_ kid: String, slot: Int = 0) async throws -> ProtectionKey {
        try await rs256(kid, key: Insecure.RSA.PrivateKey(backing: rsaBackings[slot]))
    }

    /// An RS256 key read from a PEM file: no key generation (which can hold a cooperative thread for seconds).
    static func rs256(_ kid: String, pemFile: URL) async throws -> ProtectionKey {
        try await rs256(kid, key: Insecure.RSA.PrivateKey(pem: String(contentsOf: pemFile, encoding: .utf8)))
    }

    private static func rs256(_ kid: String, key: JWTKit.Insecure.RSA.PrivateKey) async throws -> ProtectionKey {
        let (n, e) = try key.publicKey.getKeyPrimitives()
        let collection = JWTKeyCollection()
        await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let signer = try await collection.getKey(for: JWKIdentifier(string: kid))
        return ProtectionKey(
            kid: kid, algorithm: "RS256", publicMembers: ["kty": "RSA", "n": Base64URL.encode(n), "e": Base64URL.encode(e)],
            publicPEM: key.publicKey.pemRepresentation, signer: signer)
    }

    /// The key as a JWKS entry, under `kid` (by default its own).
    func jwk(kid: String? = nil) -> [String: String] {
        publicMembers.merging(["kid": kid ?? self.kid, "alg": algorithm, "use": "sig"]) { _, new in new }
    }

    /// A compact JWS of a header and claims given as JSON text, as written (repeated members and all).
    func sign(headerText: String, claimsText: String) throws -> String {
        let input = Base64URL.encode(Data(headerText.utf8)) + "." + Base64URL.encode(Data(claimsText.utf8))
        return input + "." + Base64URL.encode(Data(try signer.sign(Array(input.utf8))))
    }

    /// A compact JWS of `claims`, header `alg`, `kid` and `typ: at+jwt` changed by `header`
    /// (a nil value removes the member).
    func sign(_ claims: [String: JSONValue], header changes: [String: JSONValue?] = [:]) throws -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm), "kid": .string(kid), "typ": .string("at+jwt")]
        for (name, value) in changes { header[name] = value }
        let input = try ProtectionToken.encode(header) + "." + ProtectionToken.encode(claims)
        let signature = try signer.sign(Array(input.utf8))
        return input + "." + Base64URL.encode(Data(signature))
    }
}

enum ProtectionToken {
    static let issuer = "https://auth.example.com"
    static let resource = "https://api.example.com"

    static func encode(_ object: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode(try encoder.encode(JSONValue.object(object)))
    }

    /// RFC 9068 claims of a token valid at `now` for ten minutes, changed by `changes` (a nil value removes the claim).
    static func claims(now: Date, _ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string("user-1"), "aud": .string(resource), "client_id": .string("client-1"),
            "iat": .number(seconds), "exp": .number(seconds + 600), "jti": .string(Base64URL.random(bytes: 12)),
            "scope": .string("notes:read notes:write"),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// An unsigned token with a made-up signature (for checks that must refuse before any signature is verified).
    static func unsigned(header: [String: JSONValue], claims: [String: JSONValue], signature: [UInt8] = Array(repeating: 7, count: 64)) throws
        -> String
    {
        try encode(header) + "." + encode(claims) + "." + Base64URL.encode(Data(signature))
    }

    static func jwks(_ entries: [[String: String]]) -> String {
        let keys = entries.map { entry in
            "{" + entry.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        }
        return #"{"keys":["# + keys.joined(separator: ",") + "]}"
    }
}

/// An authorization server in the test process: JWKS documents by URL, an introspection answer,
/// a count of the requests of each URL, and an optional delay before every answer.
final class InProcessAuthorizationServer: HTTPTransport, @unchecked Sendable {
    typealias Introspection = @Sendable (_ token: String, _ request: TransportRequest) async throws -> TransportResponse

    private let lock = NSLock()
    private var documents: [String: String] = [:]
    private var counts: [String: Int] = [:]
    private var introspection: Introspection?
    private var recorded: [TransportRequest] = []
    private let delay: Duration?

    init(delay: Duration? = nil) { self.delay = delay }

    /// Serves `keys` (each under its own kid) as the JWKS at `url`.
    func serveKeys(_ keys: [ProtectionKey], at url: String = ProtectionToken.issuer + "/jwks") {
        serve(ProtectionToken.jwks(keys.map { $0.jwk() }), at: url)
    }

    func serve(_ document: String, at url: String) { lock.withLock { documents[url] = document } }

    /// Answers 404 at `url` from now on.
    func stopServing(_ url: String) { lock.withLock { documents[url] = nil } }

    func answerIntrospection(_ answer: @escaping Introspection) { lock.withLock { introspection = answer } }

    /// Answers every introspection with `document`, as JSON.
    func answerIntrospection(json document: String, status: Int = 200) {
        answerIntrospection { _, _ in
            TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(document.utf8))
        }
    }

    func count(_ url: String) -> Int { lock.withLock { counts[url, default: 0] } }
    var jwksFetches: Int { count(ProtectionToken.issuer + "/jwks") }
    var introspections: Int { count(ProtectionToken.issuer + "/introspect") }
    var requests: [TransportRequest] { lock.withLock { recorded } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        components?.query = nil
        let url = components?.string ?? request.url.absoluteString
        let (document, answer) = lock.withLock { () -> (String?, Introspection?) in
            self.counts[url, default: 0] += 1
            self.recorded.append(request)
            return (self.documents[url], self.introspection)
        }
        if let delay { try await Task.sleep(for: delay) }
        if url.hasSuffix("/introspect"), let answer {
            let form = String(decoding: request.body ?? Data(), as: UTF8.self)
            let token = form.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) }
            return try await answer(token?.removingPercentEncoding ?? "", request)
        }
        guard let document else { return TransportResponse(status: 404, body: Data("not found".utf8)) }
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(document.utf8))
    }
}

/// Builds providers and protected resources for the Protection suites.
enum ProtectionSetup {
    /// A provider whose `access_tokens` section holds `accessTokens` (key: YAML value), with `more` YAML after it.
    static func provider(
        id: String = "example", issuer: String = ProtectionToken.issuer, jwks: String? = nil, introspection: String? = nil,
        accessTokens: [String: String] = [:], more: String = ""
    ) throws -> Provider {
        var endpoints = [(key: "jwks", url: jwks ?? issuer + "/jwks")]
        if let introspection { endpoints.append((key: "introspection", url: introspection)) }
        var extra = ""
        if !accessTokens.isEmpty {
            extra += "access_tokens:\n" + accessTokens.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)\n" }.joined()
        }
        extra += more
        return try TestDescriptor(id: id, issuer: issuer, extra: extra).with(endpoints: endpoints).provider()
    }

    static func settings(
        resource: String = ProtectionToken.resource, dpop: ProtectedResource.DPoPAcceptance = .accepted, nonces: ProtectedResource.DPoPNonceSource? = nil,
        keysRefetchInterval: TimeInterval = 30, keysMaximumAge: TimeInterval = 900, scopes: [String] = [], name: String? = nil
    ) -> ProtectedResource.Settings {
        ProtectedResource.Settings(
            resource: URL(string: resource)!, dpop: dpop, dpopNonces: nonces, scopesSupported: scopes, resourceName: name,
            keysRefetchInterval: keysRefetchInterval, keysMaximumAge: keysMaximumAge)
    }

    /// The API's own client at the provider, for introspection.
    static let introspectionClient = ClientConfiguration.service(clientID: "api-client", clientSecret: Secret("api-client-secret"))
}

/// The denial of `request`, or nil when it is accepted.
func denial(_ api: ProtectedResource, _ request: ProtectedResource.Request, requiring scopes: [String] = []) async -> ProtectedResource.Denial? {
    do {
        _ = try await api.authenticate(request, requiring: scopes)
        return nil
    } catch {
        return error
    }
}

/// The denial of a Bearer request with `token`.
func denial(_ api: ProtectedResource, bearer token: String, requiring scopes: [String] = []) async -> ProtectedResource.Denial? {
    await denial(api, ProtectedResource.Request(authorization: "Bearer " + token), requiring: scopes)
}

/// The challenge of `scheme` (`Bearer` or `DPoP`), if the denial has one.
func challenge(_ denial: ProtectedResource.Denial, _ scheme: String) -> String? {
    denial.challenges.first { $0.hasPrefix(scheme + " ") }
}

/// Checks what every refusal must be: its code and status, the `error=` of the challenge of
/// `scheme` (none for `missing_token`), and no header holding the token, a part of it, or the reason.
func expectRefused(
    _ denial: ProtectedResource.Denial?, _ code: ProtectedResource.Denial.Code, status: Int, token: String?, scheme: String = "Bearer",
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    guard let denial else {
        Issue.record("the request was accepted; expected \(code)", sourceLocation: sourceLocation)
        return
    }
    #expect(denial.code == code, "\(denial.reason)", sourceLocation: sourceLocation)
    #expect(denial.status == status, "\(denial.reason)", sourceLocation: sourceLocation)
    #expect(!denial.reason.isEmpty, sourceLocation: sourceLocation)
    let everything = denial.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    #expect(!everything.contains(denial.reason), "a header tells which check failed", sourceLocation: sourceLocation)
    if let token, !token.isEmpty {
        #expect(!everything.contains(token), "a header holds the token", sourceLocation: sourceLocation)
        for part in token.split(separator: ".") where part.count >= 16 {
            #expect(!everything.contains(part), "a header holds part of the token", sourceLocation: sourceLocation)
        }
    }
    if code == .unavailable {
        #expect(denial.headers.contains { $0.name == "Retry-After" }, sourceLocation: sourceLocation)
        #expect(!everything.contains("error="), sourceLocation: sourceLocation)
        return
    }
    #expect(!denial.challenges.isEmpty, "a 401 needs a WWW-Authenticate challenge", sourceLocation: sourceLocation)
    if code == .missingToken {
        #expect(!everything.contains("error="), "a request without a token gets no error code (RFC 6750 §3.1)", sourceLocation: sourceLocation)
        return
    }
    let expected = "error=\"\(code)\""
    guard let chosen = challenge(denial, scheme) else {
        Issue.record("no \(scheme) challenge in \(denial.challenges)", sourceLocation: sourceLocation)
        return
    }
    #expect(chosen.contains(expected), "\(chosen)", sourceLocation: sourceLocation)
    #expect(
        denial.challenges.filter { $0.contains("error=") }.count == 1, "exactly one challenge carries the error: \(denial.challenges)",
        sourceLocation: sourceLocation)
}

/// Records an issue, with the reason, when the request was refused.
func expectAccepted(_ denial: ProtectedResource.Denial?, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    if let denial { Issue.record("refused: \(denial)", sourceLocation: sourceLocation) }
}

/// A clock that stands still until a test moves it: expiry and cache bounds are checked to the second,
/// however slowly the machine runs the test.
final class StoppedClock: DateClock, @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date

    /// Starts at the present second.
    init() { date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }

    func now() -> Date { lock.withLock { date } }
    func advance(_ seconds: TimeInterval) { lock.withLock { date = date.addingTimeInterval(seconds) } }
}
