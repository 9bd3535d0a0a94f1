#if Postgres
import OAuthFlow
import PostgresNIO
import ServiceLifecycle

/// The store as a swift-service-lifecycle `Service`, run in the host's `ServiceGroup` beside its server.
///
/// List the store before the server (`services: [store, app]`): a group shuts its services down in the
/// reverse order, so the server finishes its requests, and the refreshes they started, before the store stops.
extension PostgresTokenStore: Service {
    /// Runs the connection pool and saves again the refreshed sessions the database did not take, until
    /// a graceful shutdown or cancellation.
    ///
    /// - On a graceful shutdown (a `ServiceGroup` stopping on SIGTERM, say) it waits for the refreshes
    ///   under way to commit, saves every refreshed session still pending (trying again until the
    ///   database takes it), and only then stops the pool and returns: a recorded refresh is never
    ///   dropped on the way out.
    /// - On cancellation it stops at once (a group cancels its services when the graceful shutdown takes
    ///   longer than its `maximumGracefulShutdownDuration`); what was still pending is logged, not saved.
    public func run() async {
        // The pool runs outside the group's graceful shutdown, which would stop it before the saves it
        // must carry; it is stopped here, after them, or at once when this task is cancelled.
        let pool = Task.detached { [client] in await client.run() }
        await withTaskCancellationHandler {
            await cancelWhenGracefulShutdown { [pendingSaves] in await pendingSaves.retry(store: self) }
            await pendingSaves.drain(store: self)
        } onCancel: {
            pool.cancel()
        }
        pool.cancel()
        await pool.value
    }
}
#endif
