import Foundation
import OAuthFlow

// ServiceTokens against a real token endpoint on 127.0.0.1: the Authlib server of the service-token
// tests (Tests/ServiceServer), which counts every token request per client. Run it through
// Benchmarks/service-tokens.sh, which starts that server, builds this in release mode and stops it.
//
//   ServiceTokenBenchmark STATE_JSON [CALLS] [RUNS]
//
// 1. Cached hits: after one fetch, CALLS (default 1,000,000) sequential accessToken() calls, then the
//    same number spread over 2, 4 and 8 concurrent tasks; ns per call, median of RUNS (default 7).
//    Beside each, the floor: the same calls into a bare actor that returns a stored token.
// 2. 10,000 concurrent callers on a key with no usable token (an expired one, and one never fetched),
//    with the server answering at once and after 20 ms: exactly one token request (checked; anything
//    else stops the benchmark with a failure), and the time from launching the first caller until the
//    last has its token, against one plain round trip (median of 20 clientCredentialsToken calls).
//    The target is at most 2x one round trip. Beside it, the floor: 10,000 tasks awaiting one shared
//    plain request, and for both when the request left and its answer came back.

/// A line to standard output, unbuffered (the runner script pipes it).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ServiceTokenBenchmark FAILED: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let statePath = arguments.first ?? ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_SERVICE_AS"] else {
    fail("usage: ServiceTokenBenchmark STATE_JSON [CALLS] [RUNS] (the service-server.json of Tests/ServiceServer)")
}
let calls = arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let runs = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 7
let callers = 10_000
// For a profiler: ONLY=cached or ONLY=crowd runs one part, TASKS=2,4,8 the concurrent cached runs (empty:
// none), DELAYS_MS=0,20 the token endpoint's delays in part 2.
let only = ProcessInfo.processInfo.environment["ONLY"]
let concurrency = (ProcessInfo.processInfo.environment["TASKS"] ?? "2,4,8").split(separator: ",").compactMap { Int($0) }
let delays = (ProcessInfo.processInfo.environment["DELAYS_MS"] ?? "0,20").split(separator: ",").compactMap { Double($0) }.map { $0 / 1000 }
let roundTrips = 20

// MARK: - The server

struct Server {
    let issuer: String
    let tokenEndpoint: String
    let stats: URL
    let slow: URL
    let clients: [String: (id: String, secret: String)]

    init(path: String) {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let issuer = object["issuer"] as? String, let token = object["token_endpoint"] as? String,
              let stats = (object["stats"] as? String).flatMap(URL.init(string:)),
              let slow = (object["slow"] as? String).flatMap(URL.init(string:)),
              let clients = object["clients"] as? [String: [String: Any]]
        else { fail("cannot read the server description \(path)") }
        self.issuer = issuer
        tokenEndpoint = token
        self.stats = stats
        self.slow = slow
        self.clients = clients.compactMapValues { client in
            guard let id = client["client_id"] as? String, let secret = client["client_secret"] as? String else { return nil }
            return (id, secret)
        }
        for host in [URL(string: issuer)?.host, stats.host, slow.host] where host != "127.0.0.1" {
            fail("the server is not on 127.0.0.1: \(issuer)")
        }
    }

    /// Token requests the server has counted for `clientID` (client credentials), refused ones included.
    func tokenRequests(_ clientID: String) async throws -> Int {
        let response = try await DefaultHTTPTransport().send(HTTPRequest(method: .get, url: stats))
        guard let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              let counts = object["token_requests"] as? [String: Int]
        else { fail("unexpected /test/stats answer: \(String(decoding: response.body, as: UTF8.self))") }
        return counts["\(clientID) client_credentials"] ?? 0
    }

    /// Makes every later token response wait `seconds`.
    func delay(_ seconds: Double) async throws {
        var parts = URLComponents(url: slow, resolvingAgainstBaseURL: false)!
        parts.queryItems = [URLQueryItem(name: "seconds", value: String(seconds))]
        let response = try await DefaultHTTPTransport().send(HTTPRequest(method: .post, url: parts.url!))
        guard response.status == 200 else { fail("POST /test/slow answered \(response.status)") }
    }

    /// A client of `name` (a client_secret_basic client of the server) with its token endpoint given, no discovery.
    func client(_ name: String, clock: any DateClock = SystemDateClock()) throws -> (OAuthClient, String, TimedTransport) {
        guard let registered = clients[name] else { fail("the server has no client \(name)") }
        let yaml = """
            schema_version: 1
            id: bench-service
            display_name: Bench service
            protocol: oauth2
            issuer: \(issuer)
            endpoints:
              token: \(tokenEndpoint)
            grant_types: [client_credentials]
            client_auth:
              methods: [client_secret_basic]

            """
        let document = DescriptorDocument.parse(Data(yaml.utf8), path: "bench-service.yaml")
        guard let descriptor = document.descriptor else { fail("the descriptor does not parse: \(document.problems)\n\(yaml)") }
        let provider = try descriptor.resolve([:])
        let configuration = ClientConfiguration.service(
            clientID: registered.id, clientSecret: Secret(registered.secret), authMethod: .clientSecretBasic)
        let transport = TimedTransport()
        return (OAuthClient(provider: provider, configuration: configuration, transport: transport, clock: clock), registered.id, transport)
    }
}

// MARK: - Measuring

let clock = ContinuousClock()

/// The default transport, noting when the first request after ``reset()`` is handed to it and when
/// its answer arrives: where in a crowd's time the round trip falls.
final class TimedTransport: HTTPTransport, @unchecked Sendable {
    private let inner = DefaultHTTPTransport(timeout: 30)
    private let lock = NSLock()
    private var sent: ContinuousClock.Instant?
    private var answered: ContinuousClock.Instant?

    func reset() { lock.withLock { sent = nil; answered = nil } }
    var marks: (sent: ContinuousClock.Instant?, answered: ContinuousClock.Instant?) { lock.withLock { (sent, answered) } }

    private func sending() { lock.withLock { if sent == nil { sent = clock.now } } }
    private func arrived() { lock.withLock { if answered == nil { answered = clock.now } } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sending()
        let response = try await inner.send(request)
        arrived()
        return response
    }

    func send(_ request: HTTPRequest, arrival: @escaping @Sendable (HTTPResponse) -> Void) async throws -> HTTPResponse {
        sending()
        return try await inner.send(request) { response in
            self.arrived()
            arrival(response)
        }
    }
}

/// The wall clock moved on by whole hours on demand: the client dates its tokens by it and ServiceTokens
/// judges them by it, so moving it on an hour expires the cached and stored token at once (no waiting,
/// and the runs stay back to back like the others).
final class ShiftedClock: DateClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    func now() -> Date { Date().addingTimeInterval(lock.withLock { offset }) }
    func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
}

extension Duration {
    var ms: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
    var ns: Double { Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9 }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func summary(_ values: [Double], _ unit: String, digits: Int = 1) -> String {
    let f = "%.\(digits)f"
    return "median \(String(format: f, median(values))) \(unit) (min \(String(format: f, values.min()!)), max \(String(format: f, values.max()!)))"
}

/// `count` sequential cached calls from one task of the global executor (not the main actor).
func sequentialHits(_ tokens: ServiceTokens, _ request: OAuthClient.ServiceTokenRequest, count: Int, expect token: Secret) async throws -> Duration {
    try await Task.detached {
        let start = clock.now
        for _ in 0..<count {
            let got = try await tokens.accessToken(request)
            if got != token { fail("a cached call returned another token") }
        }
        return clock.now - start
    }.value
}

/// The least any actor-held cache costs: a call into an actor that returns a stored token, nothing else.
actor BareCache {
    let token: Secret
    init(_ token: Secret) { self.token = token }
    func get() -> Secret { token }
}

/// `count` calls of a ``BareCache`` spread over `tasks` concurrent tasks: the wall time until all are done.
func bareHits(_ cache: BareCache, count: Int, tasks: Int, expect token: Secret) async -> Duration {
    let each = count / tasks
    let start = clock.now
    let workers = (0..<tasks).map { _ in
        Task.detached {
            for _ in 0..<each {
                let got = await cache.get()
                if got != token { fail("the bare cache returned another token") }
            }
        }
    }
    for worker in workers { await worker.value }
    return clock.now - start
}

/// `count` cached calls spread over `tasks` concurrent tasks: the wall time until all are done.
func concurrentHits(_ tokens: ServiceTokens, _ request: OAuthClient.ServiceTokenRequest, count: Int, tasks: Int, expect token: Secret) async throws -> Duration {
    let each = count / tasks
    let start = clock.now
    let workers = (0..<tasks).map { _ in
        Task.detached {
            for _ in 0..<each {
                let got = try await tokens.accessToken(request)
                if got != token { fail("a cached call returned another token") }
            }
        }
    }
    for worker in workers { try await worker.value }
    return clock.now - start
}

/// Launches `callers` unstructured tasks that each ask `tokens` for `request`; waits for all.
/// Unstructured: a task group's child bookkeeping grows with the group (see RefreshBenchmark).
/// Returns the time until the last has its token, the time the launching loop took, and the distinct tokens.
func crowd(_ tokens: ServiceTokens, _ request: OAuthClient.ServiceTokenRequest) async throws -> (
    start: ContinuousClock.Instant, total: Duration, launch: Duration, firstServed: ContinuousClock.Instant, distinct: Int
) {
    try await Task.detached {
        let start = clock.now
        var tasks: [Task<(Secret, ContinuousClock.Instant), any Error>] = []
        tasks.reserveCapacity(callers)
        for _ in 0..<callers { tasks.append(Task { (try await tokens.accessToken(request), clock.now) }) }
        let launched = clock.now
        var seen = Set<String>()
        var first = ContinuousClock.Instant.now.advanced(by: .seconds(3_600))
        for task in tasks {
            let (token, served) = try await task.value
            seen.insert(token.value)
            first = min(first, served)
        }
        return (start, clock.now - start, launched - start, first, seen.count)
    }.value
}

/// The same fan-out without ServiceTokens: `callers` tasks awaiting one shared plain request. The floor
/// that Swift's tasks and one round trip set, to tell ServiceTokens' own cost from the runtime's.
func plainCrowd(_ client: OAuthClient, _ request: OAuthClient.ServiceTokenRequest) async throws -> (
    start: ContinuousClock.Instant, total: Duration, firstServed: ContinuousClock.Instant
) {
    try await Task.detached {
        let start = clock.now
        let shared = Task { try await client.clientCredentialsToken(request) }
        var tasks: [Task<(Secret, ContinuousClock.Instant), any Error>] = []
        tasks.reserveCapacity(callers)
        for _ in 0..<callers { tasks.append(Task { (try await shared.value.accessToken, clock.now) }) }
        var first = ContinuousClock.Instant.now.advanced(by: .seconds(3_600))
        for task in tasks { first = min(first, try await task.value.1) }
        return (start, clock.now - start, first)
    }.value
}

/// Where the round trip fell in each crowd, from the first launch: when the request reached the
/// transport, when its answer arrived, when the first caller and when the last had the token.
struct Phases: CustomStringConvertible {
    var sent: [Double] = []
    var answered: [Double] = []
    var first: [Double] = []
    var last: [Double] = []

    mutating func add(
        start: ContinuousClock.Instant, total: Duration, firstServed: ContinuousClock.Instant,
        _ marks: (sent: ContinuousClock.Instant?, answered: ContinuousClock.Instant?)
    ) {
        guard let requested = marks.sent, let answer = marks.answered else { fail("no token request was timed") }
        sent.append((requested - start).ms)
        answered.append((answer - start).ms)
        first.append((firstServed - start).ms)
        last.append(total.ms)
    }

    var description: String {
        String(format: "   medians from the first launch: request sent +%.1f ms, answered +%.1f ms, first caller served +%.1f ms, last +%.1f ms",
               median(sent), median(answered), median(first), median(last))
    }
}

func roundTrip(_ client: OAuthClient, _ request: OAuthClient.ServiceTokenRequest) async throws -> [Double] {
    for _ in 0..<3 { _ = try await client.clientCredentialsToken(request) }  // a warm connection, as the crowd gets
    var times: [Double] = []
    for _ in 0..<roundTrips {
        let start = clock.now
        _ = try await client.clientCredentialsToken(request)
        times.append((clock.now - start).ms)
    }
    return times
}

// MARK: - Run

let server = Server(path: statePath)
let request = OAuthClient.ServiceTokenRequest(scopes: ["read"])
say("ServiceTokenBenchmark: \(ProcessInfo.processInfo.activeProcessorCount) cores, token endpoint \(server.tokenEndpoint)")

// 1. Cached hits.
try await server.delay(0)
if only == nil || only == "cached" {
    let (basic, basicID, _) = try server.client("basic")
    let cachedTokens = ServiceTokens(client: basic)
    let before = try await server.tokenRequests(basicID)
    let token = try await cachedTokens.accessToken(request)
    _ = try await sequentialHits(cachedTokens, request, count: calls / 10, expect: token)  // warm up
    var sequential: [Double] = []
    for _ in 0..<runs { sequential.append(try await sequentialHits(cachedTokens, request, count: calls, expect: token).ns / Double(calls)) }
    say("cached hit, 1 task, \(calls) sequential calls: \(summary(sequential, "ns/call"))")
    let bare = BareCache(token)
    var floor: [Double] = []
    for _ in 0..<runs { floor.append(await bareHits(bare, count: calls, tasks: 1, expect: token).ns / Double(calls)) }
    say("   floor: a bare actor call returning a stored token: \(summary(floor, "ns/call"))")
    for tasks in concurrency {
        var times: [Double] = []
        var bareTimes: [Double] = []
        let done = Double(calls / tasks * tasks)
        for _ in 0..<runs {
            times.append(try await concurrentHits(cachedTokens, request, count: calls, tasks: tasks, expect: token).ns / done)
            bareTimes.append(await bareHits(bare, count: calls, tasks: tasks, expect: token).ns / done)
        }
        say("cached hit, \(tasks) concurrent tasks, \(calls) calls in all: \(summary(times, "ns/call (wall time / calls)"))")
        say("   floor: the bare actor, \(tasks) concurrent tasks: \(summary(bareTimes, "ns/call"))")
    }
    let cachedRequests = try await server.tokenRequests(basicID) - before
    guard cachedRequests == 1 else { fail("the cached-hit runs sent \(cachedRequests) token requests; expected exactly 1") }
    say("token requests for all cached-hit runs: \(cachedRequests)")
}

// 2. 10,000 concurrent callers, one request.
let shifted = ShiftedClock()
let (crowdClient, crowdID, crowdTransport) = try server.client("basic", clock: shifted)  // tokens for an hour
for delay in only == nil || only == "crowd" ? delays : [] {
    try await server.delay(delay)
    say("\n-- token endpoint delay \(Int(delay * 1000)) ms --")
    let single = try await roundTrip(crowdClient, request)
    let baseline = median(single)
    say("one plain round trip (clientCredentialsToken, \(roundTrips) calls): \(summary(single, "ms", digits: 2))")

    var floor: [Double] = []
    var floorPhases = Phases()
    for _ in 0..<runs {
        crowdTransport.reset()
        let (start, total, firstServed) = try await plainCrowd(crowdClient, request)
        floor.append(total.ms)
        floorPhases.add(start: start, total: total, firstServed: firstServed, crowdTransport.marks)
    }
    say("floor: \(callers) tasks awaiting one shared plain request, no ServiceTokens: \(summary(floor, "ms"))"
        + String(format: " = %.1fx one round trip", median(floor) / baseline))
    say(floorPhases.description)

    for kind in ["expired", "never fetched"] {
        let expiring = ServiceTokens(client: crowdClient, clock: shifted)
        if kind == "expired" { _ = try await expiring.accessToken(request) }
        var totals: [Double] = []
        var launches: [Double] = []
        var phases = Phases()
        for _ in 0..<runs {
            let tokens: ServiceTokens
            if kind == "expired" {
                shifted.advance(3_600)  // the cached and stored token (an hour's) is past its renewal point
                tokens = expiring
            } else {
                tokens = ServiceTokens(client: crowdClient, clock: shifted)
            }
            let counted = try await server.tokenRequests(crowdID)
            crowdTransport.reset()
            let (start, total, launch, firstServed, distinct) = try await crowd(tokens, request)
            let sent = try await server.tokenRequests(crowdID) - counted
            guard sent == 1 else { fail("\(callers) concurrent callers (\(kind) key) sent \(sent) token requests; expected exactly 1") }
            guard distinct == 1 else { fail("\(callers) concurrent callers (\(kind) key) got \(distinct) different tokens; expected 1") }
            totals.append(total.ms)
            launches.append(launch.ms)
            phases.add(start: start, total: total, firstServed: firstServed, crowdTransport.marks)
        }
        let ratio = median(totals) / baseline
        say("\(callers) concurrent callers, \(kind) key, 1 token request each run: \(summary(totals, "ms"))")
        say("   launching the \(callers) tasks alone: \(summary(launches, "ms"))")
        say(phases.description)
        say(String(format: "   = %.1fx one round trip (target <= 2x: %@)", ratio, ratio <= 2 ? "met" : "MISSED"))
    }
}
try await server.delay(0)
