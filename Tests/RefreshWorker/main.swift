// Test helper: refreshes one stored session once, saying on stdout how far it got, so that a
// test can kill it at a random point and know which phase the kill landed in.
// Usage: RefreshWorker STATE_DIRECTORY PROVIDERS_DIRECTORY PORT CLIENT_ID [KILL | load | paused | unlocked]
// `load` only reads the stored session, as any later command does, and says `loaded` (exit 1 when it cannot).
// `paused` says `sending` when the refresh request is about to go, under the session's lock, and sends it once a line
// arrives on stdin. `unlocked` refreshes without taking the session's lock: a process that found the lock of a
// holder suspended past its lease stale (together, the two lose and win a refresh race).
// KILL is `answer+MICROSECONDS` (SIGKILL itself that long after the token endpoint's answer
// has been read, racing what the library does with it) or `recorded` (SIGKILL itself as soon as the store has recorded the new tokens):
// a test's own kill cannot aim at the next few microseconds from outside.
//   received  the token endpoint's answer has arrived
//   recorded  the new tokens are durable (the store recorded them)
//   done      the refresh completed
import Foundation
import OAuthFlow
import StoreHooks

ParentWatch.start()

let arguments = CommandLine.arguments
let store = FileTokenStore(directory: URL(fileURLWithPath: arguments[1]))
let key = SessionKey(providerID: "django")

func say(_ word: String) {
    FileHandle.standardOutput.write(Data((word + "\n").utf8))
}

/// Says "received" the moment the token endpoint's answer has been read, before anything is done with it.
struct Announcing: HTTPTransport {
    let base = DefaultHTTPTransport(timeout: 15)
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await send(request, arrival: { _ in })
    }

    func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        if request.url.path.hasSuffix("/token"), arguments.count > 5, arguments[5] == "paused" {
            say("sending")
            _ = readLine()
        }
        return try await base.send(request) { response in
            if request.url.path.hasSuffix("/token") {
                say("received")
                if arguments.count > 5, arguments[5].hasPrefix("answer+"), let delay = useconds_t(arguments[5].dropFirst(7)) {
                    Thread.detachNewThread {
                        usleep(delay)
                        kill(getpid(), SIGKILL)
                    }
                }
            }
            arrival(response)
        }
    }
}

if arguments.count > 5, arguments[5] == "load" {
    do {
        guard try await store.load(key) != nil else {
            say("no-session")
            exit(3)
        }
        say("loaded")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

do {
    let registry = try ProviderRegistry.load(directories: [URL(fileURLWithPath: arguments[2])], includeBundled: false, includeUserDirectory: false)
    let provider = try registry.descriptor(named: "django").resolve(["port": arguments[3]])
    guard let session = try await store.load(key) else {
        say("no-session")
        exit(3)
    }
    let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: arguments[4], redirectURI: session.redirectURI), environment: OAuthEnvironment(transport: Announcing()))
    let shared: any TokenStore = arguments.count > 5 && arguments[5] == "unlocked" ? LapsedLockStore(base: store) : store
    let manager = TokenManager(client: client, store: AfterRecordStore(base: shared) {
        // Say "recorded" once a refreshed session is durable, and die there when asked to.
        say("recorded")
        if arguments.count > 5, arguments[5] == "recorded" { kill(getpid(), SIGKILL) }
    }, key: key)
    try await manager.refresh()
    say("done")
} catch let error as SessionError where error.code == .signedOut {
    say("signed-out")
    exit(2)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
