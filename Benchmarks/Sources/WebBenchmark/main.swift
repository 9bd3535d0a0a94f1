// Requests per second of the web sign-in routes (OAuthFlowHummingbird) on loopback.
//
// Usage: swift run -c release WebBenchmark [SECONDS] [CONCURRENCY]
//
// A Hummingbird app serves the routes on 127.0.0.1; the provider is simulated in process
// behind the transport (its token endpoint answers at once; for OpenID Connect it signs an
// ES256 ID token carrying the flow's nonce, which the engine verifies against a cached JWKS).
// An async-http-client load generator in the same process plays the browsers:
//   start      GET /auth/sim: seal the pending cookie, 302 to the provider
//   callback   GET /auth/sim/callback with its cookie: open the cookie, check state and iss,
//              exchange the code (simulated), verify the ID token, call the host's hook
// Callbacks are measured over flows started beforehand, so each figure is one route alone.
import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import JWTKit
import NIOCore
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowWeb

let arguments = CommandLine.arguments
let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 5 : 5
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 16 : 16

/// The simulated provider: the code carries the nonce (`c.NONCE`), so it keeps no state.
struct SimulatedProvider: HTTPTransport {
    let keys: JWTKeyCollection
    let jwks: String

    func send(_ request: OAuthFlow.HTTPRequest) async throws -> OAuthFlow.HTTPResponse {
        switch request.url.path {
        case "/token":
            let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { a, _ in a })
            let code = form["code"] ?? ""
            var body = #"{"access_token":"at-\#(code.suffix(12))","token_type":"Bearer","expires_in":3600,"scope":"openid read""#
            if code.hasPrefix("c."), let nonce = code.split(separator: ".", maxSplits: 1).last.map(String.init), nonce != "-" {
                let now = Date().timeIntervalSince1970
                let token = try await keys.sign(Claims(iss: "https://sim.example", sub: "user-1", aud: AudienceClaim(value: ["bench"]),
                                                       exp: now + 600, iat: now, nonce: nonce), kid: "k1")
                body += #","id_token":"\#(token)""#
            }
            return OAuthFlow.HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data((body + "}").utf8))
        case "/jwks":
            return OAuthFlow.HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(jwks.utf8))
        default:
            return OAuthFlow.HTTPResponse(status: 404)
        }
    }

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var exp: Double
        var iat: Double
        var nonce: String
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }
}

func descriptor(protocol kind: String) -> String {
    """
    schema_version: 1
    id: sim
    display_name: Simulated
    protocol: \(kind)
    issuer: https://sim.example
    endpoints:
      authorization: https://sim.example/authorize
      token: https://sim.example/token
      jwks: https://sim.example/jwks
    scopes:
      default: [\(kind == "oidc" ? "openid, " : "")read]
    """
}

struct Flow: Sendable {
    let callbackPath: String
    let cookie: String
}

func run(protocol kind: String, port: Int) async throws {
    let key = ES256PrivateKey()
    let keys = JWTKeyCollection()
    await keys.add(ecdsa: key, kid: "k1")
    let parameters = key.parameters!
    let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","kid":"k1","alg":"ES256","use":"sig"}]}"#
    guard let parsed = DescriptorDocument.parse(Data(descriptor(protocol: kind).utf8), path: "sim.yaml").descriptor else {
        fatalError("the benchmark descriptor does not parse")
    }
    let web = try WebSignIn(registry: ProviderRegistry([parsed]), enable: ["sim": .init(clientID: "bench")],
                            origin: URL(string: "http://localhost:\(port)")!,
                            keyring: SessionKeyring(current: .init(id: "bench", key: SymmetricKey(size: .bits256))),
                            transport: SimulatedProvider(keys: keys, jwks: jwks))
    let router = Router()
    router.addSignInRoutes(web) { result, _, _ in Response(status: .seeOther, headers: [.location: result.returnTo]) }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    let server = Task { try await app.runService() }
    defer { server.cancel() }
    try await Task.sleep(for: .milliseconds(300))

    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let base = "http://127.0.0.1:\(port)"

    @Sendable func start() async throws -> Flow {
        let response = try await client.execute(HTTPClientRequest(url: "\(base)/auth/sim"), timeout: .seconds(10))
        guard response.status == .found, let location = response.headers.first(name: "location"),
              let cookie = response.headers.first(name: "set-cookie")?.split(separator: ";").first else {
            throw CancellationError()
        }
        let items = URLComponents(string: location)?.queryItems ?? []
        let state = items.first { $0.name == "state" }?.value ?? ""
        let nonce = items.first { $0.name == "nonce" }?.value ?? "-"
        return Flow(callbackPath: "/auth/sim/callback?code=c.\(nonce)&state=\(state)&iss=https%3A%2F%2Fsim.example", cookie: String(cookie))
    }

    @Sendable func finish(_ flow: Flow) async throws {
        var request = HTTPClientRequest(url: base + flow.callbackPath)
        request.headers.add(name: "Cookie", value: flow.cookie)
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .seeOther else {
            let body = try await response.body.collect(upTo: 65_536)
            print("callback refused: \(response.status) \(String(buffer: body).prefix(300))")
            throw CancellationError()
        }
    }

    // Warm up both routes (and the JWKS cache).
    for _ in 0..<50 { try await finish(try await start()) }

    // Start: as many as the clients can send in `seconds`.
    let startEnd = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    let begin = ContinuousClock.now
    let flows = try await withThrowingTaskGroup(of: [Flow].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var mine: [Flow] = []
                while ContinuousClock.now < startEnd { mine.append(try await start()) }
                return mine
            }
        }
        var all: [Flow] = []
        for try await part in group { all += part }
        return all
    }
    let startElapsed = ContinuousClock.now - begin

    // Callback: finish every flow just started.
    let callbackBegin = ContinuousClock.now
    let chunks = stride(from: 0, to: flows.count, by: max(1, flows.count / concurrency + 1)).map { Array(flows[$0..<min(flows.count, $0 + flows.count / concurrency + 1)]) }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for chunk in chunks {
            group.addTask { for flow in chunk { try await finish(flow) } }
        }
        try await group.waitForAll()
    }
    let callbackElapsed = ContinuousClock.now - callbackBegin
    func rate(_ count: Int, _ elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return String(format: "%8.0f req/s", Double(count) / seconds)
    }
    try await client.shutdown()
    print("\(kind == "oidc" ? "OpenID Connect (ES256 ID token)" : "plain OAuth 2.0              "): start \(rate(flows.count, startElapsed)), "
        + "callback \(rate(flows.count, callbackElapsed))  (\(flows.count) flows, \(concurrency) concurrent)")
}

print("web sign-in routes on 127.0.0.1, \(seconds) s of starts per protocol, then their callbacks")
try await run(protocol: "oauth2", port: 18_431)
try await run(protocol: "oidc", port: 18_432)
