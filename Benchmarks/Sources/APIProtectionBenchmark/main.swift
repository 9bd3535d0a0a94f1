// What protecting an API with ProtectedResource costs per request, next to a route with no auth and
// to a bare Hummingbird handler that verifies the token with jwt-kit (see Docs/benchmarks.md, "API protection").
// `bash Benchmarks/api-protection.sh` runs it all; the modes:
//
//     APIProtectionBenchmark tokens DIR [N]        keys and tokens (N distinct per algorithm, default 100000)
//     APIProtectionBenchmark serve PORT DIR        the server, with the keys of DIR/jwks.json
//     APIProtectionBenchmark micro [COUNT] [ROUNDS] [CHECK]   in process (defaults 3000, 7 and 100000)
//     APIProtectionBenchmark profile VARIANT [SECONDS]       one variant in a loop, for perf record
//     APIProtectionBenchmark count VARIANT DIR COUNT          one variant over COUNT tokens of DIR, for callgrind
//
// `tokens` makes an RSA-2048 key (`rsa-1`) and a P-256 key (`ec-1`) and writes DIR/jwks.json, then the
// RFC 9068 access tokens the load generator sends: DIR/rs256-distinct.txt and DIR/es256-distinct.txt (N
// each, every one with its own `jti`), DIR/rs256-one.txt and DIR/es256-one.txt (the repeated tokens), and
// DIR/opaque-one.txt.
//
// `serve` listens on 127.0.0.1:PORT with
//   /none        no auth: "ok"
//   /busy?us=N   no auth, N µs spent in the handler (how the server's own cost grows with the handler's)
//   /jwt         AccessTokenMiddleware (JWT provider, RFC 9068 profile, RS256 and ES256), scope `read`
//   /bare        the handler verifies the Bearer token with jwt-kit's JWTKeyCollection.verify (the same
//                JWKS, loaded into jwt-kit), then checks exp, iss, aud and the scope `read`: the "bare
//                Hummingbird + jwt-kit" baseline
//   /opaque      AccessTokenMiddleware (opaque-token provider, RFC 7662 introspection), scope `read`
//   /jwt-timed, /stats   a diagnosis: /jwt's check made in the handler, the thread CPU time it takes
//                summed up, read (and reset) with GET /stats
//   /jwks        the JWKS of the JWT provider
//   /introspect  the introspection endpoint of the opaque provider (client_secret_basic)
// Every route answers "ok" the same way. The APIs reach /jwks and /introspect over HTTP with the default
// transport, like any provider, and keep the default settings: the verified-token cache holds 10,000
// tokens, so a distinct token is seen for the first time as long as none comes back from it (`micro`
// counts how many do). Once the repeated tokens have been accepted once (the JWKS fetched, the opaque
// token introspected), `serve` writes DIR/ready.
//
// `micro` times the same checks in process (no HTTP; the provider answers in process), as ns per call:
// ROUNDS rounds, each running every variant once over COUNT tokens not used in an earlier round, back to
// back; the table gives the median, min and max over the rounds.
import _CryptoExtras
import Crypto
import Foundation
import Hummingbird
import JWTKit
import NIOCore
import OAuthFlow
import OAuthFlowHummingbird
import Synchronization

// MARK: - Identities shared by every mode

let issuer = "https://issuer.bench.example"
let opaqueIssuer = "https://opaque.bench.example"
let resource = "https://api.bench.example"
let introspectionClientID = "bench-api"
let introspectionSecret = "bench-api-secret"
let opaqueToken = "opaque-bench-token-" + String(repeating: "x", count: 24)

/// The two providers' descriptors, resolved; `base` is where /jwks and /introspect are. They are written to a
/// temporary directory and read as a host reads its own (`ProviderRegistry.load(directories:)`).
func providers(base: String) throws -> [Provider] {
    let texts = [
        """
        schema_version: 1
        id: bench
        display_name: Benchmark issuer
        protocol: oauth2
        issuer: \(issuer)
        endpoints:
          authorization: \(issuer)/authorize
          token: \(issuer)/token
          jwks: \(base)/jwks
        access_tokens:
          format: jwt
          profile: rfc9068
          signing_algs: [RS256, ES256]
        """,
        """
        schema_version: 1
        id: opaque
        display_name: Benchmark opaque issuer
        protocol: oauth2
        issuer: \(opaqueIssuer)
        endpoints:
          authorization: \(opaqueIssuer)/authorize
          token: \(base)/token
          introspection: \(base)/introspect
        client_auth:
          methods: [client_secret_basic]
        access_tokens:
          format: opaque
        """,
    ]
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauthflow-api-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for (name, text) in zip(["bench", "opaque"], texts) {
        try Data(text.utf8).write(to: directory.appendingPathComponent("\(name).yaml"))
    }
    let registry = try ProviderRegistry.load(directories: [directory], includeBundled: false)
    return try ["bench", "opaque"].map { try registry.descriptor(named: $0).resolve([:]) }
}

/// The API of the JWT provider, and the API of the opaque one (each with the default settings); `instrumented`, they
/// report to in-process metrics and tracing backends (Instrumented.swift).
func makeAPIs(base: String, transport: any HTTPTransport, cacheCapacity: Int = 10_000, instrumented: Bool = false) throws -> (
    jwt: ProtectedResource, opaque: ProtectedResource
) {
    let resolved = try providers(base: base)
    let settings = ProtectedResource.Settings(resource: URL(string: resource)!, cacheCapacity: cacheCapacity)
    let environment = instrumented ? Instrumentation.environment(transport: transport) : OAuthEnvironment(transport: transport)
    let jwt = try ProtectedResource(providers: [resolved[0]], settings: settings, environment: environment)
    let opaque = try ProtectedResource(
        providers: [resolved[1]], settings: settings,
        introspectionClients: ["opaque": .service(clientID: introspectionClientID, clientSecret: Secret(introspectionSecret))],
        environment: environment)
    return (jwt, opaque)
}

/// Prints a line at once (the script and perf wait for lines; `print` is buffered when piped).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

// MARK: - Keys and tokens

/// The value of `name` in a form-encoded body (the benchmark's own values need no decoding).
func formValue(_ name: String, in body: String) -> String? {
    for pair in body.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, parts[0] == name { return String(parts[1]).removingPercentEncoding }
    }
    return nil
}

/// Decodes base64url without padding.
func base64urlDecoded(_ text: String) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
}

func base64url(_ bytes: some DataProtocol) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

enum Algorithm: String, CaseIterable, Sendable {
    case rs256 = "RS256"
    case es256 = "ES256"
}

struct SigningMaterial: Sendable {
    let rsa: _RSA.Signing.PrivateKey
    let ec: P256.Signing.PrivateKey

    static func make() throws -> SigningMaterial {
        SigningMaterial(rsa: try _RSA.Signing.PrivateKey(keySize: .bits2048), ec: P256.Signing.PrivateKey())
    }

    var jwks: String {
        let primitives = try! rsa.publicKey.getKeyPrimitives()
        let point = ec.publicKey.x963Representation  // 0x04 || x || y
        let rsaKey = #"{"kty":"RSA","use":"sig","alg":"RS256","kid":"rsa-1","n":"\#(base64url(primitives.modulus))","e":"\#(base64url(primitives.publicExponent))"}"#
        let ecKey = #"{"kty":"EC","use":"sig","alg":"ES256","kid":"ec-1","crv":"P-256","x":"\#(base64url(point[1..<33]))","y":"\#(base64url(point[33..<65]))"}"#
        return #"{"keys":[\#(rsaKey),\#(ecKey)]}"#
    }

    /// The same public keys for jwt-kit, under the same `kid`s.
    func jwtKitKeys() async throws -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PublicKey(backing: rsa.publicKey), digestAlgorithm: .sha256, kid: "rsa-1")
        await keys.add(ecdsa: try ES256PublicKey(backing: ec.publicKey), kid: "ec-1")
        return keys
    }

    /// An RFC 9068 access token: `typ: at+jwt`, the claims of the profile, and its own `jti`.
    func token(_ algorithm: Algorithm, serial: Int, tag: String, now: Int) throws -> String {
        let kid = algorithm == .rs256 ? "rsa-1" : "ec-1"
        let header = base64url(Data(#"{"alg":"\#(algorithm.rawValue)","kid":"\#(kid)","typ":"at+jwt"}"#.utf8))
        let claims =
            #"{"iss":"\#(issuer)","sub":"user-\#(serial % 1000)","aud":"\#(resource)","client_id":"bench-client","scope":"read write","iat":\#(now),"exp":\#(now + 86_400),"jti":"\#(tag)-\#(serial)"}"#
        let input = header + "." + base64url(Data(claims.utf8))
        let digest = SHA256.hash(data: Data(input.utf8))
        let signature: Data =
            switch algorithm {
            case .rs256: try rsa.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation
            case .es256: try ec.signature(for: digest).rawRepresentation
            }
        return input + "." + base64url(signature)
    }

    /// `count` tokens, made on every core.
    func tokens(_ algorithm: Algorithm, count: Int, tag: String) async throws -> [String] {
        let now = Int(Date().timeIntervalSince1970)
        let lanes = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let per = (count + lanes - 1) / lanes
        return try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    let range = (lane * per)..<min(count, (lane + 1) * per)
                    return (lane, try range.map { try self.token(algorithm, serial: $0, tag: tag, now: now) })
                }
            }
            var parts: [(Int, [String])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }
}

/// The introspection answer for `token`: active with scope `read` for the benchmark's opaque token.
func introspectionAnswer(token: String?, authorization: String?) -> Data {
    let expected = "Basic " + Data("\(introspectionClientID):\(introspectionSecret)".utf8).base64EncodedString()
    guard authorization == expected else { return Data(#"{"active":false}"#.utf8) }
    guard token == opaqueToken else { return Data(#"{"active":false}"#.utf8) }
    let exp = Int(Date().timeIntervalSince1970) + 86_400
    return Data(
        #"{"active":true,"iss":"\#(opaqueIssuer)","aud":"\#(resource)","sub":"user-opaque","client_id":"bench-client","scope":"read write","token_type":"Bearer","exp":\#(exp)}"#
            .utf8)
}

// MARK: - The bare baseline: jwt-kit in the handler

/// The claims the bare route reads, with the minimum checks: signature (jwt-kit), exp, iss, aud, scope `read`.
struct BareClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var scope: String?

    func verify(using algorithm: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
        guard iss.value == issuer else { throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "issuer") }
        try aud.verifyIntendedAudience(includes: resource)
        guard let scope, scope.split(separator: " ").contains("read") else {
            throw JWTError.generic(identifier: "scope", reason: "the token lacks the scope read")
        }
    }
}

// MARK: - serve

func ok() -> Response {
    Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(staticString: "ok")))
}

/// Makes the keys and writes DIR/jwks.json and the tokens the load generator sends (see the top of the file).
func writeTokens(directory: URL, count: Int) async throws {
    let started = ContinuousClock.now
    let material = try SigningMaterial.make()
    let fm = FileManager.default
    try fm.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(material.jwks.utf8).write(to: directory.appendingPathComponent("jwks.json"))
    for algorithm in Algorithm.allCases {
        let name = algorithm.rawValue.lowercased()
        let distinct = try await material.tokens(algorithm, count: count, tag: "\(name)-d")
        try Data((distinct.joined(separator: "\n") + "\n").utf8).write(to: directory.appendingPathComponent("\(name)-distinct.txt"))
        let one = try material.token(algorithm, serial: 0, tag: "\(name)-one", now: Int(Date().timeIntervalSince1970))
        try Data((one + "\n").utf8).write(to: directory.appendingPathComponent("\(name)-one.txt"))
    }
    try Data((opaqueToken + "\n").utf8).write(to: directory.appendingPathComponent("opaque-one.txt"))
    say("made \(count) + 1 tokens of each of RS256 and ES256 in \(ContinuousClock.now - started)")
}

/// Serves the routes with the keys of DIR/jwks.json.
let refusedBare = Response(
    status: .unauthorized, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#, .contentLength: "0", .cacheControl: "no-store"])

/// The CPU time of the calling thread.
func threadCPUNanoseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

func serve(port: Int, directory: URL) async throws {
    let jwks = try String(contentsOf: directory.appendingPathComponent("jwks.json"), encoding: .utf8)
    try? FileManager.default.removeItem(at: directory.appendingPathComponent("ready"))
    // The bare route loads the same JWKS into jwt-kit, as an app with jwt-kit alone would.
    let bareKeys = JWTKeyCollection()
    try await bareKeys.add(jwksJSON: jwks)
    let base = "http://127.0.0.1:\(port)"
    // CACHE_CAPACITY sets the APIs' verified-token cache (a diagnosis: 0 takes the cache out of the first-seen path).
    let capacity = ProcessInfo.processInfo.environment["CACHE_CAPACITY"].flatMap { Int($0) } ?? 10_000
    let apis = try makeAPIs(base: base, transport: DefaultHTTPTransport(timeout: 5), cacheCapacity: capacity)
    // The same APIs with metrics and tracing on (in-process backends that keep everything and drop the spans):
    // /jwt-instrumented against /jwt is what they cost a request (Docs/operations.md, "Overhead").
    let instrumented = try makeAPIs(base: base, transport: DefaultHTTPTransport(timeout: 5), cacheCapacity: capacity, instrumented: true)
    let router = Router(context: BasicAccessRequestContext.self)
    router.get("none") { _, _ in ok() }
    // No auth, and `us` µs of CPU in the handler: how the server's own cost per request grows with the handler's.
    router.get("busy") { request, _ -> Response in
        let microseconds = request.uri.queryParameters["us"].flatMap { Int(String($0)) } ?? 0
        let end = ContinuousClock.now + .microseconds(microseconds)
        while ContinuousClock.now < end {}
        return ok()
    }
    router.group("jwt").add(middleware: AccessTokenMiddleware(apis.jwt, requiring: ["read"])).get { _, _ in ok() }
    router.group("opaque").add(middleware: AccessTokenMiddleware(apis.opaque, requiring: ["read"])).get { _, _ in ok() }
    router.group("jwt-instrumented").add(middleware: AccessTokenMiddleware(instrumented.jwt, requiring: ["read"])).get { _, _ in ok() }
    // A diagnosis: /jwt's check made in the handler, with the CPU time of the thread spent in it summed up
    // (the call does not suspend, so it stays on one thread); GET /stats reads and resets the sums. (jwt-kit's
    // verification cannot be timed so: its keys are an actor, and a call that waits for it runs on as other work.)
    let spent = Mutex<(calls: Int, nanoseconds: Int)>((0, 0))
    router.get("jwt-timed") { request, _ -> Response in
        let access = ProtectedResource.Request(authorization: request.headers[values: .authorization])
        let start = threadCPUNanoseconds()
        do throws(ProtectedResource.Denial) {
            _ = try await apis.jwt.authenticate(access, requiring: ["read"])
        } catch {
            return error.hummingbirdResponse
        }
        let took = threadCPUNanoseconds() - start
        spent.withLock { $0.calls += 1; $0.nanoseconds += took }
        return ok()
    }
    router.get("stats") { _, _ -> String in
        let sums = spent.withLock { sums in
            defer { sums = (0, 0) }
            return sums
        }
        return "\(sums.calls) checks, \(sums.calls == 0 ? 0 : sums.nanoseconds / sums.calls) ns of thread CPU time each\n"
    }
    router.get("bare") { request, _ -> Response in
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return refusedBare }
        do {
            _ = try await bareKeys.verify(String(header.dropFirst(7)), as: BareClaims.self)
            return ok()
        } catch {
            return refusedBare
        }
    }
    let jwksBody = ByteBuffer(string: jwks)
    router.get("jwks") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: jwksBody))
    }
    router.post("introspect") { request, _ -> Response in
        let body = try await request.body.collect(upTo: 65_536)
        let answer = introspectionAnswer(token: formValue("token", in: String(buffer: body)), authorization: request.headers[.authorization])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer)))
    }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil))
    let server = Task { try await app.runService() }

    // Fetch the JWKS and introspect the opaque token once (the repeated tokens are then remembered).
    var ready = false
    for _ in 0..<100 where !ready {
        try await Task.sleep(for: .milliseconds(100))
        do {
            for algorithm in Algorithm.allCases {
                let one = try String(contentsOf: directory.appendingPathComponent("\(algorithm.rawValue.lowercased())-one.txt"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                _ = try await apis.jwt.authenticate(ProtectedResource.Request(authorization: "Bearer " + one), requiring: ["read"])
                _ = try await instrumented.jwt.authenticate(ProtectedResource.Request(authorization: "Bearer " + one), requiring: ["read"])
            }
            _ = try await apis.opaque.authenticate(ProtectedResource.Request(authorization: "Bearer " + opaqueToken), requiring: ["read"])
            ready = true
        } catch let denial as ProtectedResource.Denial where denial.status == 503 {
            continue  // the server is not listening yet
        }
    }
    guard ready else { throw CancellationError() }
    try Data().write(to: directory.appendingPathComponent("ready"))
    let loops = ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] ?? "\(System.coreCount)"
    say("serving on \(base), \(loops) event loop thread(s), verified-token cache \(capacity), pid \(ProcessInfo.processInfo.processIdentifier)")
    try await server.value
}

// MARK: - micro

/// Answers /jwks and /introspect in process.
struct InProcessProvider: HTTPTransport {
    let jwks: Data

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        switch request.url.path {
        case "/jwks":
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: jwks)
        case "/introspect":
            let authorization = request.headers.first { $0.key.lowercased() == "authorization" }?.value
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: introspectionAnswer(token: formValue("token", in: String(decoding: request.body ?? Data(), as: UTF8.self)), authorization: authorization))
        default:
            return TransportResponse(status: 404)
        }
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

/// ns per call of `body` over `count` calls.
func timed(_ count: Int, _ body: (Int) async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    for index in 0..<count { try await body(index) }
    return nanoseconds(ContinuousClock.now - start) / Double(count)
}

func micro(count: Int, rounds: Int, check: Int) async throws {
    let material = try SigningMaterial.make()
    let jwksData = Data(material.jwks.utf8)
    let transport = InProcessProvider(jwks: jwksData)
    let base = "http://127.0.0.1:9"
    let apis = try makeAPIs(base: base, transport: transport)
    let uncached = try makeAPIs(base: base, transport: transport, cacheCapacity: 0).jwt
    let bareKeys = try await material.jwtKitKeys()
    let jwksKeys = JWTKeyCollection()
    try await jwksKeys.add(jwksJSON: material.jwks)
    let rsaPublic = material.rsa.publicKey
    let ecPublic = material.ec.publicKey

    let started = ContinuousClock.now
    var distinct: [Algorithm: [String]] = [:]
    for algorithm in Algorithm.allCases {
        distinct[algorithm] = try await material.tokens(algorithm, count: count * rounds, tag: "\(algorithm.rawValue)-micro")
    }
    var one: [Algorithm: String] = [:]
    for algorithm in Algorithm.allCases {
        let token = try material.token(algorithm, serial: 0, tag: "\(algorithm.rawValue)-one", now: Int(Date().timeIntervalSince1970))
        one[algorithm] = token
        // Warm up: the JWKS fetch, the first verification, and the cache entry of the repeated token.
        _ = try await apis.jwt.authenticate(ProtectedResource.Request(authorization: "Bearer " + token), requiring: ["read"])
        _ = try await uncached.authenticate(ProtectedResource.Request(authorization: "Bearer " + token), requiring: ["read"])
        _ = try await bareKeys.verify(token, as: BareClaims.self)
    }
    _ = try await apis.opaque.authenticate(ProtectedResource.Request(authorization: "Bearer " + opaqueToken), requiring: ["read"])
    say("\(count) tokens per variant and round, \(rounds) rounds; tokens made in \(ContinuousClock.now - started)")

    var results: [String: [Double]] = [:]
    var order: [String] = []
    func record(_ name: String, _ value: Double) {
        if results[name] == nil { order.append(name) }
        results[name, default: []].append(value)
    }
    let repeats = count * 10
    for round in 0..<rounds {
        for algorithm in Algorithm.allCases {
            let name = algorithm.rawValue
            let tokens = Array(distinct[algorithm]![(round * count)..<((round + 1) * count)])
            let headers = tokens.map { "Bearer " + $0 }
            let parts = tokens.map { token -> (input: Data, signature: Data) in
                let dot = token.lastIndex(of: ".")!
                return (Data(token[..<dot].utf8), base64urlDecoded(String(token[token.index(after: dot)...]))!)
            }
            record("\(name) first seen: authenticate (cache 10,000)", try await timed(count) { index in
                _ = try await apis.jwt.authenticate(ProtectedResource.Request(authorization: headers[index]), requiring: ["read"])
            })
            record("\(name) first seen: authenticate (cache 0)", try await timed(count) { index in
                _ = try await uncached.authenticate(ProtectedResource.Request(authorization: headers[index]), requiring: ["read"])
            })
            record("\(name) first seen: authenticate, 16 tasks at once (cache 0)", try await concurrently(count, tasks: 16) { index in
                _ = try await uncached.authenticate(ProtectedResource.Request(authorization: headers[index]), requiring: ["read"])
            })
            record("\(name) jwt-kit verify + claim checks, 16 tasks at once", try await concurrently(count, tasks: 16) { index in
                _ = try await bareKeys.verify(tokens[index], as: BareClaims.self)
            })
            // As in a server, where other work runs between two checks: 8 MiB written between calls
            // (more than the core's L2), its own time taken off.
            let pollution = timedSync(count) { _ in pollute() }
            record("\(name) first seen: authenticate, 8 MiB written between calls (cache 0)", try await timed(count) { index in
                pollute()
                _ = try await uncached.authenticate(ProtectedResource.Request(authorization: headers[index]), requiring: ["read"])
            } - pollution)
            record("\(name) jwt-kit verify + claim checks, 8 MiB written between calls", try await timed(count) { index in
                pollute()
                _ = try await bareKeys.verify(tokens[index], as: BareClaims.self)
            } - pollution)
            record("\(name) jwt-kit verify + claim checks (bare)", try await timed(count) { index in
                _ = try await bareKeys.verify(tokens[index], as: BareClaims.self)
            })
            record("\(name) jwt-kit verify, keys from the JWKS", try await timed(count) { index in
                _ = try await jwksKeys.verify(tokens[index], as: BareClaims.self)
            })
            record("\(name) signature alone (SHA-256 + verify, swift-crypto)", try timedSync(count) { index in
                let digest = SHA256.hash(data: parts[index].input)
                let valid =
                    switch algorithm {
                    case .rs256: rsaPublic.isValidSignature(.init(rawRepresentation: parts[index].signature), for: digest, padding: .insecurePKCS1v1_5)
                    case .es256: ecPublic.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: parts[index].signature), for: digest)
                    }
                guard valid else { throw CancellationError() }
            })
            record("\(name) part: jwt-kit unverified decode (no signature)", try await timed(count) { index in
                _ = try await bareKeys.unverified(tokens[index], as: BareClaims.self)
            })
            record("\(name) part: SHA-256 of the token", timedSync(count) { index in
                _ = SHA256.hash(data: Data(tokens[index].utf8))
            })
            let repeated = "Bearer " + one[algorithm]!
            record("\(name) repeated token: authenticate", try await timed(repeats) { _ in
                _ = try await apis.jwt.authenticate(ProtectedResource.Request(authorization: repeated), requiring: ["read"])
            })
        }
        let opaque = "Bearer " + opaqueToken
        record("opaque introspection cache hit: authenticate", try await timed(repeats) { _ in
            _ = try await apis.opaque.authenticate(ProtectedResource.Request(authorization: opaque), requiring: ["read"])
        })
        let noToken = ProtectedResource.Request(authorization: nil as String?)
        record("no token: authenticate (401 answer built)", await timed(repeats) { _ in
            do throws(ProtectedResource.Denial) { _ = try await apis.jwt.authenticate(noToken, requiring: ["read"]) } catch { _ = error.headers }
        })
    }
    say("| Variant | median ns/call | min | max |")
    say("| --- | ---: | ---: | ---: |")
    for name in order {
        let values = results[name]!
        say("| \(name) | \(String(format: "%.0f", median(values))) | \(String(format: "%.0f", values.min()!)) | \(String(format: "%.0f", values.max()!)) |")
    }

    // Do distinct tokens ever come back from the verified-token cache? The server's case: CHECK distinct
    // ES256 tokens sent in turn, twice over, to an API with the default cache (10,000). A call under 40 µs
    // cannot have verified a P-256 signature (about 50 µs alone here), so it was answered from the cache.
    if check > 0 {
        let fresh = try makeAPIs(base: base, transport: transport).jwt
        let tokens = try await material.tokens(.es256, count: check, tag: "check").map { "Bearer " + $0 }
        var fast = [0, 0]
        var slow: [Double] = []  // calls over 1 ms: the cache making room
        let started = ContinuousClock.now
        var quarters = [0, 0, 0, 0]  // second-pass hits by the quarter of the list their token is in
        for pass in 0..<2 {
            for (index, token) in tokens.enumerated() {
                let start = ContinuousClock.now
                _ = try await fresh.authenticate(ProtectedResource.Request(authorization: token), requiring: ["read"])
                let took = nanoseconds(ContinuousClock.now - start)
                if took < 40_000 {
                    fast[pass] += 1
                    if pass == 1 { quarters[index * 4 / tokens.count] += 1 }
                }
                if took > 1_000_000 { slow.append(took) }
            }
        }
        let total = nanoseconds(ContinuousClock.now - started)
        say(
            "cache check: \(check) distinct ES256 tokens, twice over: calls under 40 µs: first pass \(fast[0]), second pass \(fast[1]) "
                + "(by quarter of the list: \(quarters.map(String.init).joined(separator: ", ")))")
        say(
            "cache check: \(slow.count) calls over 1 ms (median \(String(format: "%.1f", slow.isEmpty ? 0 : median(slow) / 1e6)) ms, max \(String(format: "%.1f", (slow.max() ?? 0) / 1e6)) ms), "
                + "\(String(format: "%.1f", slow.reduce(0, +) / 1e6)) ms in all, \(String(format: "%.1f", slow.reduce(0, +) / Double(2 * check) / 1e3)) µs per call of \(String(format: "%.1f", total / Double(2 * check) / 1e3))")
    }
}

/// One variant in a loop for `seconds`, to run under `perf record`: `first-rs256`, `first-es256`,
/// `repeat-rs256`, `repeat-es256`, `opaque`, `bare-rs256` or `bare-es256`.
func profile(_ variant: String, seconds: Double) async throws {
    let material = try SigningMaterial.make()
    let transport = InProcessProvider(jwks: Data(material.jwks.utf8))
    let apis = try makeAPIs(base: "http://127.0.0.1:9", transport: transport)
    let bareKeys = try await material.jwtKitKeys()
    let algorithm: Algorithm = variant.hasSuffix("es256") ? .es256 : .rs256
    let distinct = variant.hasPrefix("first") || variant.hasPrefix("bare")
    let tokens = distinct ? try await material.tokens(algorithm, count: 20_000, tag: "profile") : [try material.token(algorithm, serial: 0, tag: "one", now: Int(Date().timeIntervalSince1970))]
    let headers = (variant == "opaque" ? [opaqueToken] : tokens).map { "Bearer " + $0 }
    let api = variant == "opaque" ? apis.opaque : apis.jwt
    let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var calls = 0
    say("profiling \(variant) (pid \(ProcessInfo.processInfo.processIdentifier))")
    while ContinuousClock.now < end {
        for _ in 0..<1000 {
            let index = calls % headers.count
            if variant.hasPrefix("bare") {
                _ = try await bareKeys.verify(tokens[index], as: BareClaims.self)
            } else {
                _ = try await api.authenticate(ProtectedResource.Request(authorization: headers[index]), requiring: ["read"])
            }
            calls += 1
        }
    }
    say("\(calls) calls, \(String(format: "%.0f", seconds * 1e9 / Double(calls))) ns per call (distinct tokens come back after 20,000 calls)")
}

/// 8 MiB, a byte written in each 64-byte line by `pollute()`.
nonisolated(unsafe) let pollutionBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 8 << 20)

func pollute() {
    for offset in stride(from: 0, to: 8 << 20, by: 64) { pollutionBuffer[offset] &+= 1 }
}

/// ns per call of `body` over `count` calls made by `tasks` tasks at once (as a server's connections make them).
func concurrently(_ count: Int, tasks: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<tasks {
            group.addTask {
                for index in stride(from: lane, to: count, by: tasks) { try await body(index) }
            }
        }
        try await group.waitForAll()
    }
    return nanoseconds(ContinuousClock.now - start) / Double(count)
}

func timedSync(_ count: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    for index in 0..<count { try body(index) }
    return nanoseconds(ContinuousClock.now - start) / Double(count)
}

/// One variant over the first COUNT tokens of DIR (written by `tokens`), with nothing else timed or printed: for
/// instruction counts (`valgrind --tool=callgrind`), where two runs with different COUNTs give the cost of one call
/// apart from the set-up. VARIANT is `first-rs256` (authenticate, default cache), `first0-rs256` (cache 0),
/// `bare-rs256` (jwt-kit verify + the claim checks, keys from the JWKS), `jwtkit-decode-rs256` (jwt-kit's
/// unverified decode) or `repeat-rs256`, each also for es256. (What the library's own parts cost is read from
/// callgrind's counts of `authenticate`'s callees.)
func count(_ variant: String, directory: URL, count: Int) async throws {
    let algorithm = variant.hasSuffix("es256") ? "es256" : "rs256"
    let jwks = try String(contentsOf: directory.appendingPathComponent("jwks.json"), encoding: .utf8)
    // The first `count` lines, split on bytes: under callgrind the set-up should cost little next to the calls.
    func lines(_ name: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        var lines: [String] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") && lines.count < count {
            lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
            start = index + 1
        }
        return lines
    }
    let one = try lines("\(algorithm)-one.txt")[0]
    let tokens = variant.hasPrefix("repeat") ? Array(repeating: one, count: count) : try lines("\(algorithm)-distinct.txt")
    guard tokens.count == count else { throw CancellationError() }
    let headers = tokens.map { "Bearer " + $0 }
    let transport = InProcessProvider(jwks: Data(jwks.utf8))
    let base = "http://127.0.0.1:9"
    let api = try makeAPIs(base: base, transport: transport, cacheCapacity: variant.hasPrefix("first0") ? 0 : 10_000).jwt
    let keys = JWTKeyCollection()
    try await keys.add(jwksJSON: jwks)
    _ = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer " + one), requiring: ["read"])
    _ = try await keys.verify(one, as: BareClaims.self)
    let kind = variant.split(separator: "-").dropLast().joined(separator: "-")
    for index in 0..<count {
        switch kind {
        case "first", "first0", "repeat":
            _ = try await api.authenticate(ProtectedResource.Request(authorization: headers[index]), requiring: ["read"])
        case "bare":
            _ = try await keys.verify(tokens[index], as: BareClaims.self)
        case "jwtkit-decode":
            _ = try await keys.unverified(tokens[index], as: BareClaims.self)
        default:
            say("unknown variant \(variant)")
            exit(2)
        }
    }
    say("\(variant): \(count) calls")
}

// MARK: - main

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "tokens":
    guard arguments.count >= 2 else {
        say("usage: APIProtectionBenchmark tokens DIR [N]")
        exit(2)
    }
    try await writeTokens(directory: URL(fileURLWithPath: arguments[1]), count: arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000)
case "serve":
    guard arguments.count >= 3, let port = Int(arguments[1]) else {
        say("usage: APIProtectionBenchmark serve PORT DIR")
        exit(2)
    }
    try await serve(port: port, directory: URL(fileURLWithPath: arguments[2]))
case "micro":
    let numbers = arguments.dropFirst().compactMap { Int($0) }
    try await micro(
        count: numbers.first ?? 3000, rounds: numbers.dropFirst().first ?? 7, check: numbers.dropFirst(2).first ?? 100_000)
case "count":
    guard arguments.count >= 4, let calls = Int(arguments[3]) else {
        say("usage: APIProtectionBenchmark count VARIANT DIR COUNT")
        exit(2)
    }
    try await count(arguments[1], directory: URL(fileURLWithPath: arguments[2]), count: calls)
case "profile":
    try await profile(arguments.count > 1 ? arguments[1] : "first-rs256", seconds: arguments.count > 2 ? Double(arguments[2]) ?? 10 : 10)
default:
    say("usage: APIProtectionBenchmark tokens DIR [N] | serve PORT DIR | micro [COUNT] [ROUNDS] [CHECK] | profile VARIANT [SECONDS] | count VARIANT DIR COUNT")
    exit(2)
}
