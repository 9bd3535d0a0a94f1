#if Postgres
// Test helper: one "host instance" sharing sessions through PostgresTokenStore.
//
// Connection: OAUTHFLOW_TEST_PG_HOST, _PORT, _USER, _PASSWORD, _DATABASE; table OAUTHFLOW_TEST_PG_TABLE.
// The keyring is the tests' fixed key `test-1` (PostgresWorkerKeys below).
//
// Usage: PostgresWorker MODE ACCOUNT [PROVIDERS_DIRECTORY AS_PORT CLIENT_ID]
//   callers N   prints `ready`, waits for a line on stdin, then N concurrent callers ask the
//               token manager for a valid access token; prints one JSON line:
//               {"tokens": [distinct tokens], "served": n, "errors": [...], "requests": token requests sent, "ms": elapsed}
//   hold        takes the session's lock, prints `locked`, and sleeps until killed
//   refresh-die refreshes, and SIGKILLs itself as soon as the store recorded the new tokens
//   refresh-die-after MICROSECONDS
//               refreshes, and SIGKILLs itself that long after the token endpoint's answer was read
//               (a thread started then races what the library does with it)
//   read        prints the stored access token, or `none`
//   sign-in     signs alice in at the test server (OAUTHFLOW_TEST_AS_PYTHON runs OAUTHFLOW_TEST_AS_AGENT)
//               and stores the session; prints `signed-in`
//   expire      marks the stored access token expired; prints `expired`
//   bench-read SECONDS CONCURRENCY
//               loads the stored session as fast as it can; prints {"reads": n, "ms": elapsed}
import Crypto
import Foundation
import OAuthFlow
import OAuthFlowPostgres
import PostgresNIO
import StoreHooks

ParentWatch.start()

let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

/// Counts the token requests this process sends.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
    let base = DefaultHTTPTransport(timeout: 30)
    private let lock = NSLock()
    private var count = 0
    var tokenRequests: Int { lock.withLock { count } }

    /// Called the moment a token answer was read, before the library sees it.
    var onTokenAnswer: (@Sendable () -> Void)?

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await send(request, arrival: { _ in })
    }

    func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        let isToken = request.url.absoluteString.hasSuffix("/token/")
        if isToken { lock.withLock { count += 1 } }
        let hook = isToken ? onTokenAnswer : nil
        return try await base.send(request) { response in
            hook?()
            arrival(response)
        }
    }
}

guard arguments.count >= 3 else { fail("usage: PostgresWorker MODE ACCOUNT [PROVIDERS AS_PORT CLIENT_ID]") }
let mode = arguments[1]
let key = SessionKey(providerID: "django", account: arguments[2])

var configuration = PostgresClient.Configuration(
    host: environment["OAUTHFLOW_TEST_PG_HOST"] ?? "127.0.0.1", port: Int(environment["OAUTHFLOW_TEST_PG_PORT"] ?? "") ?? 5432,
    username: environment["OAUTHFLOW_TEST_PG_USER"] ?? "postgres", password: environment["OAUTHFLOW_TEST_PG_PASSWORD"],
    database: environment["OAUTHFLOW_TEST_PG_DATABASE"], tls: .disable)
configuration.options.maximumConnections = 8
let keyring = try SessionKeyring(current: SessionKeyring.Key(
    id: "test-1", key: SymmetricKey(data: SHA256.hash(data: Data("oauthflow postgres test key 1".utf8)))))
let store = try PostgresTokenStore(configuration: configuration, keyring: keyring, table: environment["OAUTHFLOW_TEST_PG_TABLE"] ?? "oauthflow_sessions")
let pool = Task { await store.run() }

func manager(_ transport: CountingTransport, store: any TokenStore) async throws -> TokenManager {
    guard arguments.count >= 6 else { fail("this mode needs PROVIDERS AS_PORT CLIENT_ID") }
    let registry = try ProviderRegistry.load(directories: [URL(fileURLWithPath: arguments[3])], includeBundled: false, includeUserDirectory: false)
    let provider = try registry.descriptor(named: "django").resolve(["port": arguments[4]])
    guard let session = try await store.load(key) else { fail("no stored session for \(key)") }
    let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: arguments[5], redirectURI: session.redirectURI), environment: OAuthEnvironment(transport: transport))
    return TokenManager(client: client, store: store, key: key)
}

func json(_ object: Any) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

do {
    try await store.migrate()
    switch mode {
    case "callers":
        guard arguments.count >= 7, let count = Int(arguments[6]) else { fail("callers needs N") }
        let transport = CountingTransport()
        let manager = try await manager(transport, store: store)
        say("ready")
        _ = readLine()
        let start = ContinuousClock.now
        let results = await withTaskGroup(of: Result<String, any Error>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do { return .success(try await manager.validAccessToken().value) } catch { return .failure(error) }
                }
            }
            var all: [Result<String, any Error>] = []
            for await result in group { all.append(result) }
            return all
        }
        let elapsed = ContinuousClock.now - start
        var tokens = Set<String>()
        var errors: [String] = []
        for result in results {
            switch result {
            case let .success(token): tokens.insert(token)
            case let .failure(error): errors.append("\(error)")
            }
        }
        say(json(["tokens": tokens.sorted(), "served": tokens.isEmpty ? 0 : results.count - errors.count, "errors": errors,
                  "requests": transport.tokenRequests,
                  "ms": Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15]))
    case "hold":
        let lock = try await store.lock(key)
        say("locked")
        try await Task.sleep(for: .seconds(3600))
        lock.release()
    case "refresh-die":
        let transport = CountingTransport()
        let manager = try await manager(transport, store: AfterRecordStore(base: store) {
            // SIGKILL this process once a refreshed session is recorded.
            say("recorded")
            kill(getpid(), SIGKILL)
        })
        try await manager.refresh()
        say("done")
    case "refresh-die-after":
        guard arguments.count >= 7, let delay = useconds_t(arguments[6]) else { fail("refresh-die-after needs MICROSECONDS") }
        let transport = CountingTransport()
        transport.onTokenAnswer = {
            say("received")
            Thread.detachNewThread {
                usleep(delay)
                kill(getpid(), SIGKILL)
            }
        }
        let manager = try await manager(transport, store: store)
        try await manager.refresh()
        say("done")
        try await Task.sleep(for: .seconds(60))
    case "sign-in":
        #if os(macOS) || os(Linux)
        guard arguments.count >= 6, let python = environment["OAUTHFLOW_TEST_AS_PYTHON"], let agent = environment["OAUTHFLOW_TEST_AS_AGENT"] else {
            fail("sign-in needs PROVIDERS AS_PORT CLIENT_ID, OAUTHFLOW_TEST_AS_PYTHON and OAUTHFLOW_TEST_AS_AGENT")
        }
        let registry = try ProviderRegistry.load(directories: [URL(fileURLWithPath: arguments[3])], includeBundled: false, includeUserDirectory: false)
        let provider = try registry.descriptor(named: "django").resolve(["port": arguments[4]])
        let redirect = URL(string: "http://127.0.0.1:53682/callback")!
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: arguments[5], redirectURI: redirect))
        let pending = try await client.startAuthorization()
        let agentRun = Process()
        agentRun.executableURL = URL(fileURLWithPath: python)
        agentRun.arguments = [agent, pending.url.absoluteString]
        let output = Pipe()
        agentRun.standardOutput = output
        try agentRun.run()
        let callback = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        agentRun.waitUntilExit()
        guard agentRun.terminationStatus == 0, let url = URL(string: callback.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            fail("the agent could not sign in")
        }
        let tokens = try await client.finishSignIn(.callback(url), pending: pending).tokens
        try await store.save(StoredSession(key: key, variables: provider.variables, clientID: arguments[5], redirectURI: redirect,
                                           tokens: tokens, updatedAt: Date()))
        say("signed-in")
        #else
        fail("sign-in runs the agent with Foundation's Process, which only macOS and Linux have")
        #endif
    case "expire":
        guard var session = try await store.load(key) else { fail("no stored session for \(key)") }
        session.tokens.expiresAt = Date().addingTimeInterval(-5)
        try await store.save(session)
        say("expired")
    case "read":
        say(try await store.load(key)?.tokens.accessToken.value ?? "none")
    case "bench-read":
        guard arguments.count >= 5, let seconds = Double(arguments[3]), let concurrency = Int(arguments[4]) else { fail("bench-read SECONDS CONCURRENCY") }
        _ = try await store.load(key)
        let start = ContinuousClock.now
        let end = start + .milliseconds(Int(seconds * 1000))
        let reads = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var reads = 0
                    while ContinuousClock.now < end {
                        guard try await store.load(key) != nil else { fail("the session vanished") }
                        reads += 1
                    }
                    return reads
                }
            }
            var total = 0
            for try await count in group { total += count }
            return total
        }
        let elapsed = ContinuousClock.now - start
        say(json(["reads": reads, "ms": Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15]))
    default:
        fail("unknown mode \(mode)")
    }
} catch let error as SessionError where error.code == .signedOut {
    say("signed-out")
    exit(2)
} catch {
    fail("\(error)")
}
pool.cancel()
exit(0)
#endif
