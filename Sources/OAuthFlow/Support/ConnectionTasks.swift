/// Serves each connection a listener accepts in a task of its own, for as long as the listener runs: the loopback
/// redirect receiver's and the simulated provider's accept loops.
///
/// A task group keeps each finished child's result until it is collected, so a plain `withTaskGroup` around an accept
/// loop holds one finished task for every connection it ever served. `withDiscardingTaskGroup` keeps none, but it
/// needs macOS 14, iOS 17, tvOS 17 and watchOS 10, above the package's floor; below them the loop collects its
/// finished children itself as it accepts (``serveCollectingFinished(_:_:)``), so it holds only the connections still
/// being served and those that finished since the last one came in.
package enum ConnectionTasks {
    /// Serves each element of `connections` with `serve`, each in a child task, and returns once `connections` ends
    /// (the listener is closed, or fails) and every child is done.
    package static func serve<Connections: AsyncSequence>(
        _ connections: Connections, _ serve: @escaping @Sendable (Connections.Element) async -> Void
    ) async where Connections.Element: Sendable {
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
            await withDiscardingTaskGroup { tasks in
                do {
                    for try await connection in connections {
                        tasks.addTask { await serve(connection) }
                    }
                } catch {
                    // The listener failed or was closed: the connections already accepted are still served.
                }
            }
        } else {
            await serveCollectingFinished(connections, serve)
        }
    }

    /// ``serve(_:_:)`` below macOS 14 and iOS 17: a `withTaskGroup` that collects each finished child when the next
    /// connection is accepted.
    ///
    /// - Returns: How many finished children were collected while connections still came in (a test reads it).
    @discardableResult
    static func serveCollectingFinished<Connections: AsyncSequence>(
        _ connections: Connections, _ serve: @escaping @Sendable (Connections.Element) async -> Void
    ) async -> Int where Connections.Element: Sendable {
        await withTaskGroup(of: Void.self) { tasks in
            // Counted by each child as its last step, so that `next()` below only ever waits for a child that is
            // returning: the loop never stops accepting for a connection still being served.
            let finished = Locked(0)
            var collected = 0
            do {
                for try await connection in connections {
                    tasks.addTask {
                        await serve(connection)
                        finished.withLock { $0 += 1 }
                    }
                    while collected < finished.current {
                        await tasks.next()
                        collected += 1
                    }
                }
            } catch {
                // The listener failed or was closed: the connections already accepted are still served.
            }
            return collected
        }
    }
}
