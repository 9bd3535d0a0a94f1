import Foundation
import OAuthFlow

// Times one refresh round trip through TokenManager, then 10,000 concurrent
// validAccessToken() calls on an expired session, which must share one refresh.
// The token endpoint is simulated in process with a fixed latency (default 20 ms,
// first argument in milliseconds), so the figures show the manager's own overhead.

let latency = UInt64(CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20) * 1_000_000
let callers = 10_000

final class SimulatedTokenEndpoint: HTTPTransport, @unchecked Sendable {
    let latency: UInt64
    private let lock = NSLock()
    private var served = 0
    init(latency: UInt64) { self.latency = latency }
    var count: Int { lock.withLock { served } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let n = lock.withLock { () -> Int in served += 1; return served }
        try await Task.sleep(nanoseconds: latency)
        let body = #"{"access_token":"access-\#(n)","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-\#(n)"}"#
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
}

let yaml = """
    schema_version: 1
    id: bench
    display_name: Bench
    protocol: oauth2
    issuer: https://auth.example.com
    endpoints:
      authorization: https://auth.example.com/authorize
      token: https://auth.example.com/token
    """
guard let descriptor = DescriptorDocument.parse(Data(yaml.utf8), path: "bench.yaml").descriptor else { fatalError("bad descriptor") }
let provider = try descriptor.resolve()
let key = SessionKey(providerID: "bench")

func expiredSession() -> StoredSession {
    StoredSession(key: key, variables: [:], clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!,
                  tokens: TokenSet(accessToken: Secret("old"), tokenType: "bearer", expiresAt: Date().addingTimeInterval(-5),
                                   refreshToken: Secret("refresh-0"), idToken: nil, scopes: [], issuedAt: Date()),
                  updatedAt: Date())
}

func run(concurrent: Int) async throws -> (Duration, Int) {
    let endpoint = SimulatedTokenEndpoint(latency: latency)
    let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
        clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!), transport: endpoint)
    let manager = TokenManager(client: client, store: InMemoryTokenStore([expiredSession()]), key: key, transport: endpoint)
    let clock = ContinuousClock()
    let start = clock.now
    // Unstructured tasks: a task group's child bookkeeping (TaskGroup::removeChildTask) grows
    // with the group and dominated a first version of this benchmark.
    let tasks = (0..<concurrent).map { _ in Task { try await manager.validAccessToken() } }
    for task in tasks { _ = try await task.value }
    return (clock.now - start, endpoint.count)
}

func ms(_ d: Duration) -> String {
    String(format: "%.1f ms", Double(d.components.seconds) * 1_000 + Double(d.components.attoseconds) / 1e15)
}

var single: [Duration] = []
var crowd: [Duration] = []
for _ in 0..<7 {
    let (one, oneCount) = try await run(concurrent: 1)
    let (many, manyCount) = try await run(concurrent: callers)
    precondition(oneCount == 1 && manyCount == 1, "expected exactly one refresh request per run")
    single.append(one)
    crowd.append(many)
}
single.sort()
crowd.sort()
print("simulated token endpoint latency: \(latency / 1_000_000) ms, 7 runs")
print("single refresh round trip: median \(ms(single[3])), min \(ms(single[0])), max \(ms(single[6]))")
print("\(callers) concurrent validAccessToken(), one refresh: median \(ms(crowd[3])), min \(ms(crowd[0])), max \(ms(crowd[6]))")
