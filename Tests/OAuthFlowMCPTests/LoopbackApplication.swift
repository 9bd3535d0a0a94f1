import Foundation
import Hummingbird
import Logging
import OAuthFlowTestSupport
import ServiceLifecycle
import Testing

/// A Hummingbird application listening on 127.0.0.1, on a port that it holds.
///
/// `unusedPort()` only says that a port was free a moment ago. With sixteen tests at a time, another test's server, a
/// loopback receiver or an outgoing connection can take it before the application binds; probing "does something answer
/// on the port" then talks to whoever took it, and the test fails later with a refused connection once that other
/// server stops. So the application itself says it is listening (`onServerRunning`); a bind that fails ends its run,
/// and the next free port is tried.
@available(macOS 14, iOS 17, tvOS 17, *)
struct LoopbackApplication: Sendable {
    /// The port the application listens on.
    let port: Int
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
    }

    /// Starts the router `makeRouter` builds for a port, on that port, and returns once the application is listening;
    /// `nextPort` says which port to try next (a free one by default).
    static func start(
        label: String, attempts: Int = 8, nextPort: () throws -> Int = unusedPort,
        _ makeRouter: (Int) throws -> Router<BasicRequestContext>
    ) async throws -> LoopbackApplication {
        for _ in 0..<attempts {
            let port = try nextPort()
            let (listening, continuation) = AsyncStream<Void>.makeStream()
            let app = Application(
                router: try makeRouter(port), configuration: .init(address: .hostname("127.0.0.1", port: port)),
                onServerRunning: { _ in continuation.yield() })
            let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: label)))
            let running = Task {
                // A failed bind ends the run: the stream finishes without a value and the next port is tried.
                try? await group.run()
                continuation.finish()
            }
            var events = listening.makeAsyncIterator()
            if await events.next() != nil {
                return LoopbackApplication(port: port, group: group, running: running)
            }
            await running.value
        }
        throw LoopbackApplicationError(label: label, attempts: attempts)
    }

    /// Shuts the application down and waits until it has stopped.
    func stop() async {
        await group.triggerGracefulShutdown()
        await running.value
    }

    /// Runs `body` while the application serves, and stops it after, whether `body` returns or throws.
    static func serving<T: Sendable>(
        label: String, _ makeRouter: (Int) throws -> Router<BasicRequestContext>, _ body: (LoopbackApplication) async throws -> T
    ) async throws -> T {
        let app = try await start(label: label, makeRouter)
        do {
            let result = try await body(app)
            await app.stop()
            return result
        } catch {
            await app.stop()
            throw error
        }
    }
}

/// No port of 127.0.0.1 could be bound in so many attempts.
struct LoopbackApplicationError: Error, CustomStringConvertible {
    let label: String
    let attempts: Int
    var description: String { "\(label): no free port of 127.0.0.1 could be bound in \(attempts) attempts" }
}
