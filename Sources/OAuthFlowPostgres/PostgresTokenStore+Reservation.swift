#if Postgres
import Foundation
import NIOCore
import OAuthFlow
import PostgresNIO

extension PostgresTokenStore {
    /// The reservation of a refresh: the answer is recorded in the row's `received` columns, beside the
    /// session it replaces, and made the session on commit.
    ///
    /// While the backend holding the session's lock (``holder``) lives, the recorded session waits for
    /// its checks; once that backend is gone, the next ``PostgresTokenStore/load(_:)`` takes it.
    final class RowReservation: TokenStoreReservation, Sendable {
        let store: PostgresTokenStore
        let key: SessionKey
        /// The backend holding this session's lock: while it lives, the recorded session waits for its checks.
        let holder: Int32?
        private let state = Locked(State())

        private struct State {
            /// The write the answer's arrival completes; true once it is in the row.
            var arrival: Task<Bool, Never>?
            /// Where the answer goes; given nothing when the reservation ends without one.
            var pending: Payload?
            /// The refresh token of the session being refreshed, once ``answerRecorder(refreshing:)`` is asked for.
            var replacing: Secret?
            /// Committed or abandoned: the store's graceful shutdown no longer waits for it.
            var ended = false
        }

        init(store: PostgresTokenStore, key: SessionKey, holder: Int32?) {
            self.store = store
            self.key = key
            self.holder = holder
            store.pendingSaves.refreshBegan()
        }

        deinit {
            state.current.pending?.deliver(nil)
            end()
        }

        /// Tells the store's pending saves that this refresh is over (once).
        private func end() {
            let first = state.withLock { state -> Bool in
                defer { state.ended = true }
                return !state.ended
            }
            if first { store.pendingSaves.refreshEnded() }
        }

        /// Lets a waiting arrival write go without an answer, and gives the write to wait for.
        private func releaseArrival() -> Task<Bool, Never>? {
            let (pending, arrival) = state.withLock { ($0.pending, $0.arrival) }
            pending?.deliver(nil)
            return arrival
        }

        /// Seals the raw answer behind the session to keep and writes it to the row the moment it
        /// arrives, before it is even parsed (`RefreshAnswerRecord`), on a connection leased
        /// before the request was sent: no pool to wait for between the answer and its record.
        func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)? {
            guard let header = try? RefreshAnswerRecord.header(keeping: session, encode: PostgresTokenStore.encode) else { return nil }
            let payload = Payload()
            let store = self.store
            let key = self.key
            let holder = self.holder
            let write = Task { () -> Bool in
                do {
                    return try await store.client.withConnection { connection in
                        // Nothing to write when no answer comes (the request failed, the reservation was dropped).
                        guard let (keyID, sealed) = await payload.value else { return false }
                        return try await store.withDeadline("record the refreshed session \(key)") {
                            try await connection.query(
                                """
                                UPDATE \(unescaped: store.table)
                                   SET received_key_id = \(keyID), received = \(sealed), received_pid = \(holder)
                                 WHERE provider_id = \(key.providerID) AND account = \(key.account)
                                RETURNING 1
                                """, logger: store.logger
                            ).collect().count > 0
                        }
                    }
                } catch {
                    // record(_:) writes the parsed session instead.
                    return false
                }
            }
            state.withLock {
                $0.arrival = write
                $0.pending = payload
                $0.replacing = session.tokens.refreshToken
            }
            return { answer in
                payload.deliver(try? store.seal(header + Data(RefreshAnswerRecord.frame(answer)), key: key))
            }
        }

        /// The sealed answer, handed from the thread that read it to the leased connection.
        final class Payload: Sendable {
            typealias Sealed = (keyID: String, sealed: ByteBuffer)
            private let state = Locked(State())

            private struct State {
                /// `.some(nil)`: delivered, nothing to record.
                var delivered: Sealed??
                var waiter: CheckedContinuation<Sealed?, Never>?
            }

            /// Hands over the sealed answer (nil: nothing to record); later calls do nothing.
            func deliver(_ value: Sealed?) {
                let resume = state.withLock { state -> CheckedContinuation<Sealed?, Never>? in
                    guard state.delivered == nil else { return nil }
                    state.delivered = .some(value)
                    defer { state.waiter = nil }
                    return state.waiter
                }
                resume?.resume(returning: value)
            }

            var value: Sealed? {
                get async {
                    await withCheckedContinuation { continuation in
                        let now = state.withLock { state -> Sealed?? in
                            if let delivered = state.delivered { return delivered }
                            state.waiter = continuation
                            return nil
                        }
                        if let now { continuation.resume(returning: now) }
                    }
                }
            }
        }

        func record(_ session: StoredSession) async throws {
            if let arrival = releaseArrival(), await arrival.value { return }
            let (keyID, sealed) = try store.seal(session)
            if try await !write(keyID, sealed) {
                // The row was removed meanwhile (a sign-out elsewhere): the new tokens are still the user's.
                try await store.save(session)
            }
        }

        /// Puts a sealed record in the row's `received` column.
        ///
        /// - Returns: false when there is no row.
        private func write(_ keyID: String, _ sealed: ByteBuffer) async throws -> Bool {
            let holder = self.holder
            let key = self.key
            let store = self.store
            return try await store.withDeadline("record the refreshed session \(key)") {
                try await store.client.query(
                    """
                    UPDATE \(unescaped: store.table)
                       SET received_key_id = \(keyID), received = \(sealed), received_pid = \(holder)
                     WHERE provider_id = \(key.providerID) AND account = \(key.account)
                    RETURNING 1
                    """, logger: store.logger
                ).collect().count > 0
            }
        }

        /// Makes `session` the row's session; when the database does not take it, the store keeps it and
        /// saves it again (``PostgresTokenStore/PendingSaves``), and the error is thrown all the same.
        func commit(_ session: StoredSession) async throws {
            defer { end() }
            // A write started at the answer's arrival must land before the commit clears it, not after.
            if let arrival = releaseArrival() { _ = await arrival.value }
            do {
                if let holder {
                    // Only while this refresh's lock still stands: once its backend is gone, another instance may
                    // have taken the recorded answer over and refreshed again, and this session's refresh token is spent.
                    guard try await store.saveHolding(session, holder: holder) else {
                        throw TokenStoreError(
                            .unavailable,
                            "the lock on \(key) ended during its refresh (its database connection closed); the refreshed session is saved only if no other instance has taken the session over since"
                        )
                    }
                } else {
                    try await store.save(session)
                }
            } catch {
                store.pendingSaves.keep(session, replacing: state.withLock { $0.replacing })
                throw error
            }
        }

        func abandon() async {
            defer { end() }
            let key = self.key
            let holder = self.holder
            let store = self.store
            // A write started at the answer's arrival must not land after the drop.
            if let arrival = releaseArrival() { _ = await arrival.value }
            _ = try? await store.withDeadline("drop the recorded session \(key)") {
                try await store.client.query(
                    """
                    UPDATE \(unescaped: store.table)
                       SET received = NULL, received_key_id = NULL, received_pid = NULL
                     WHERE provider_id = \(key.providerID) AND account = \(key.account)
                       AND received_pid IS NOT DISTINCT FROM \(holder)
                    """, logger: store.logger)
            }
        }
    }

    /// Makes `session` the row's session while `holder`, the backend holding the lock a refresh took, still holds an
    /// advisory lock, in one statement: ``save(_:)`` for a refresh's commit.
    ///
    /// - Returns: false when nothing was written: the lock ended (another instance may have taken the session over),
    ///   or the row is gone.
    func saveHolding(_ session: StoredSession, holder: Int32) async throws -> Bool {
        let (keyID, sealed, sid, sub) = try row(for: session)
        let key = session.key
        return try await withDeadline("save the session \(key)") {
            try await self.client.query(
                """
                UPDATE \(unescaped: self.table) AS s
                   SET key_id = \(keyID), sealed = \(sealed), provider_sid = \(sid), provider_sub = \(sub),
                       received = NULL, received_key_id = NULL, received_pid = NULL, updated_at = now()
                 WHERE s.provider_id = \(key.providerID) AND s.account = \(key.account)
                   AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = \(holder))
                RETURNING 1
                """, logger: self.logger
            ).collect().count > 0
        }
    }
}
#endif
