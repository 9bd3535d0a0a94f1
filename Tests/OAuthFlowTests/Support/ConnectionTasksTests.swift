import Testing

@testable import OAuthFlow

/// The accept loops' task group (the loopback receiver's, the simulated provider server's): every connection served,
/// the loop ended only once they all are, and below macOS 14 the finished children collected as connections come in
/// rather than held until the listener closes. Both ways are run here, whatever the system has.
@Suite struct ConnectionTasksTests {
    /// Each connection arrives once the one before it has been served, as on a listener whose clients come one after
    /// another: a loop that collected nothing until the listener closed would hold all of them.
    @Test func collectsFinishedConnectionsWhileAccepting() async {
        let count = 200
        let (connections, continuation) = AsyncStream<Int>.makeStream()
        let served = Locked(Set<Int>())
        continuation.yield(0)
        let collected = await ConnectionTasks.serveCollectingFinished(connections) { connection in
            served.withLock { _ = $0.insert(connection) }
            if connection + 1 < count { continuation.yield(connection + 1) } else { continuation.finish() }
        }
        #expect(served.current == Set(0..<count))
        // A child counts itself finished a moment after it served, so the latest one or two may still be running
        // when the next connection is accepted; every other one has been collected by then.
        #expect(collected >= count / 2, "collected \(collected) of \(count) while accepting")
    }

    @Test(arguments: [false, true])
    func returnsOnceEveryConnectionIsServed(collectingFinished: Bool) async {
        let (connections, continuation) = AsyncStream<Int>.makeStream()
        for connection in 0..<20 { continuation.yield(connection) }
        continuation.finish()
        let served = Locked(0)
        let serve: @Sendable (Int) async -> Void = { _ in
            // Slower than the loop, so that connections are still being served when the last one is accepted.
            for _ in 0..<50 { await Task.yield() }
            served.withLock { $0 += 1 }
        }
        if collectingFinished {
            await ConnectionTasks.serveCollectingFinished(connections, serve)
        } else {
            await ConnectionTasks.serve(connections, serve)
        }
        #expect(served.current == 20)
    }

    /// A listener that fails (or is closed) ends the loop, and the connections it accepted are still served.
    @Test(arguments: [false, true])
    func aFailedListenersConnectionsAreStillServed(collectingFinished: Bool) async {
        let (connections, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        for connection in 0..<5 { continuation.yield(connection) }
        continuation.finish(throwing: CancellationError())
        let served = Locked(0)
        let serve: @Sendable (Int) async -> Void = { _ in served.withLock { $0 += 1 } }
        if collectingFinished {
            await ConnectionTasks.serveCollectingFinished(connections, serve)
        } else {
            await ConnectionTasks.serve(connections, serve)
        }
        #expect(served.current == 5)
    }
}
