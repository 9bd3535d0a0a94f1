#if Postgres
import Foundation
import Logging
import OAuthFlow

extension PostgresTokenStore {
    /// What the store must not drop when it stops: the refreshes under way (from ``reserve(_:)`` to their
    /// commit or abandon), and refreshed sessions the database did not take when their refresh committed.
    ///
    /// A rotating server has spent the stored refresh token by the time its answer arrives, so a refreshed
    /// session that was not saved is the session now. ``run()`` saves such a session again in the
    /// background (after 1, 2, 4, 8, 15 s, then every 30 s) until the database takes it, and before it
    /// returns from a graceful shutdown it waits for the refreshes under way and saves what is pending.
    ///
    /// A session is saved again only while the row still holds the session it was refreshed from (or the
    /// refreshed one, as a recorded answer taken over by ``load(_:)``): one refreshed or signed out since
    /// then, here or by another instance, is newer, and the pending one is dropped.
    final class PendingSaves: Sendable {
        /// The pauses before the first attempts; after them, ``retryDelays``' last one between attempts.
        static let retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15), .seconds(30)]

        struct Entry: Sendable {
            let id: Int
            let session: StoredSession
            /// The refresh token of the session the refresh started from, when known.
            let replacing: Secret?
            var attempts = 0
            var due: ContinuousClock.Instant
        }

        private struct State {
            var entries: [SessionKey: Entry] = [:]
            var nextID = 0
            /// Reservations made and not yet committed or abandoned.
            var open = 0
        }

        private let state = Locked(State())
        private let logger: Logger

        init(logger: Logger) {
            self.logger = logger
        }

        /// The refreshed sessions waiting to be saved.
        var sessions: [StoredSession] { state.withLock { $0.entries.values.map(\.session) } }

        /// A refresh begins: until ``refreshEnded()``, a graceful shutdown waits for it.
        func refreshBegan() { state.withLock { $0.open += 1 } }

        /// The refresh ``refreshBegan()`` counted has committed, or given up.
        func refreshEnded() { state.withLock { $0.open -= 1 } }

        /// Keeps `session` to save again; it replaces any session kept for its key before.
        ///
        /// - Parameter replacing: The refresh token of the session the refresh started from.
        func keep(_ session: StoredSession, replacing: Secret?) {
            state.withLock { state in
                state.nextID += 1
                state.entries[session.key] = Entry(
                    id: state.nextID, session: session, replacing: replacing, due: .now + Self.retryDelays[0])
            }
            logger.info("refreshed session not saved; the store saves it again in the background", metadata: ["session": "\(session.key)"])
        }

        /// Saves the kept sessions as their attempts fall due, until cancelled.
        func retry(store: PostgresTokenStore) async {
            while !Task.isCancelled {
                let next = state.withLock { $0.entries.values.map(\.due).min() }
                let wake = min(next ?? .now + .seconds(1), .now + .seconds(1))
                do { try await Task.sleep(until: wake, clock: .continuous) } catch { return }
                await attempt(store: store, dueOnly: true)
            }
        }

        /// Waits for the refreshes under way, then saves every kept session, trying again until each is
        /// saved (or superseded), or until the task is cancelled.
        func drain(store: PostgresTokenStore) async {
            while state.withLock({ $0.open > 0 }) && !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
            }
            var pause = Duration.milliseconds(250)
            while !Task.isCancelled {
                await attempt(store: store, dueOnly: false)
                if state.withLock({ $0.entries.isEmpty }) { return }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
            let left = state.withLock { $0.entries.count }
            let open = state.withLock { $0.open }
            if left > 0 || open > 0 {
                logger.info(
                    "the store was stopped before saving every refreshed session; their holders must sign in again",
                    metadata: ["unsaved": "\(left)", "refreshesUnderWay": "\(open)"])
            }
        }

        /// One attempt at each kept session (each due one, with `dueOnly`).
        private func attempt(store: PostgresTokenStore, dueOnly: Bool) async {
            let now = ContinuousClock.now
            let entries = state.withLock { $0.entries.values.filter { !dueOnly || $0.due <= now } }
            for entry in entries {
                let done = await save(entry, store: store)
                state.withLock { state in
                    // A newer session kept for the key meanwhile stays.
                    guard state.entries[entry.session.key]?.id == entry.id else { return }
                    if done {
                        state.entries[entry.session.key] = nil
                    } else {
                        let attempts = entry.attempts + 1
                        let delay = Self.retryDelays[min(attempts, Self.retryDelays.count - 1)]
                        state.entries[entry.session.key]?.attempts = attempts
                        state.entries[entry.session.key]?.due = .now + delay
                    }
                }
            }
        }

        /// Saves `entry` under the session's lock unless the row holds a newer session.
        ///
        /// - Returns: true when it is saved or superseded; false when the database did not take it.
        private func save(_ entry: Entry, store: PostgresTokenStore) async -> Bool {
            let key = entry.session.key
            do {
                let lock = try await store.lock(key)
                defer { lock.release() }
                let current = try await store.load(key)
                let stored = current?.tokens.refreshToken
                guard let current, current == entry.session || stored == entry.session.tokens.refreshToken || stored == entry.replacing
                else {
                    logger.info("a refreshed session left unsaved was superseded; it is dropped", metadata: ["session": "\(key)"])
                    return true
                }
                // A security event's mark for a new sign-in, set since, stays on the session saved over it.
                var session = entry.session
                session.reauthenticationRequired = session.reauthenticationRequired ?? current.reauthenticationRequired
                if current != session { try await store.save(session) }
                logger.info("refreshed session saved after a retry", metadata: ["session": "\(key)"])
                return true
            } catch {
                logger.debug("saving the refreshed session failed again", metadata: ["session": "\(key)", "error": "\(error)"])
                return false
            }
        }
    }
}
#endif
