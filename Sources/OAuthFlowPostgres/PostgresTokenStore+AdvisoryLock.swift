#if Postgres
import Crypto
import Foundation
import OAuthFlow
import PostgresNIO

extension PostgresTokenStore {
    /// The advisory lock id of a session: 64 bits of SHA-256 over its provider and account.
    static func lockID(_ key: SessionKey) -> Int64 {
        let digest = SHA256.hash(data: Data("oauthflow-lock\u{0}\(key.providerID)\u{0}\(key.account)".utf8))
        return digest.withUnsafeBytes { raw in raw.loadUnaligned(as: Int64.self) }
    }

    /// A transaction holding `pg_advisory_xact_lock` on a pooled connection until released.
    ///
    /// Across the whole cluster one instance holds a session's lock; if that instance dies, PostgreSQL
    /// ends its transaction and the lock with it.
    final class AdvisoryLock: TokenStoreLock, Sendable {
        let key: SessionKey
        let store: PostgresTokenStore
        private let state = Locked(State())

        private struct State {
            var releaseSignal: CheckedContinuation<Void, Never>?
            var released = false
            var grantedPID: Int32?
        }

        /// The backend holding the lock, once granted.
        var pid: Int32? {
            get { state.withLock { $0.grantedPID } }
            set { state.withLock { $0.grantedPID = newValue } }
        }

        init(key: SessionKey, store: PostgresTokenStore) {
            self.key = key
            self.store = store
        }

        /// Starts the holding task and returns the backend pid once the lock is granted.
        ///
        /// The lock is asked for with `pg_try_advisory_xact_lock` every few milliseconds inside one
        /// transaction, each try answered within the store's ``PostgresTokenStore/timeout``: a server
        /// that stops or stops answering while another instance refreshes is noticed within that
        /// deadline, not at the end of ``PostgresTokenStore/lockTimeout``. A lock granted after the
        /// caller gave up is released at once.
        func acquire(id: Int64) async throws -> Int32 {
            let store = self.store
            let key = self.key
            let wait = store.lockTimeout
            // When the lock's last request was sent, while it waits for the server's answer.
            let asked = Locked<ContinuousClock.Instant?>(.now)
            return try await withCheckedThrowingContinuation { (granted: CheckedContinuation<Int32, any Error>) in
                let once = Locked(Optional(granted))
                let watchdog = Task {
                    while !Task.isCancelled {
                        do { try await Task.sleep(for: .milliseconds(50)) } catch { return }
                        if asked.withLock({ $0.map { ContinuousClock.now - $0 > store.timeout } ?? false }) {
                            once.resume(
                                throwing: TokenStoreError(
                                    .unavailable, "cannot lock the session \(key): \(store.target) did not answer within \(store.timeout)"))
                            return
                        }
                    }
                }
                Task {
                    do {
                        try await store.client.withConnection { connection in
                            do {
                                asked.withLock { $0 = .now }
                                try await connection.query("BEGIN", logger: store.logger)
                                let started = ContinuousClock.now
                                var pause = Duration.milliseconds(2)
                                while true {
                                    // The caller gave up (the server was too slow): stop asking.
                                    guard once.current != nil else { throw CancellationError() }
                                    asked.withLock { $0 = .now }
                                    var held = false
                                    for try await value in try await connection.query("SELECT pg_try_advisory_xact_lock(\(id))", logger: store.logger)
                                        .decode(Bool.self)
                                    {
                                        held = value
                                    }
                                    asked.withLock { $0 = nil }
                                    if held { break }
                                    guard ContinuousClock.now - started < wait else {
                                        throw TokenStoreError(
                                            .unavailable, "another instance held the session \(key) for longer than \(wait); try again later")
                                    }
                                    try await Task.sleep(for: pause)
                                    pause = min(pause * 2, .milliseconds(25))
                                }
                                asked.withLock { $0 = .now }
                                var pid: Int32 = 0
                                for try await value in try await connection.query("SELECT pg_backend_pid()", logger: store.logger).decode(Int32.self)
                                {
                                    pid = value
                                }
                                asked.withLock { $0 = nil }
                                watchdog.cancel()
                                if !once.resume(returning: pid) { self.release() }
                                await self.waitForRelease()
                                try await connection.query("COMMIT", logger: store.logger)
                            } catch {
                                // Never hand a connection back to the pool inside a transaction holding a lock.
                                do {
                                    try await connection.query("ROLLBACK", logger: store.logger)
                                } catch {
                                    try? await connection.close()
                                }
                                throw error
                            }
                        }
                    } catch {
                        watchdog.cancel()
                        once.resume(throwing: store.failure(error, doing: "lock the session \(key)"))
                    }
                }
            }
        }

        private func waitForRelease() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.released { return true }
                    state.releaseSignal = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func release() {
            let (signal, pid) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Int32?) in
                guard !state.released else { return (nil, state.grantedPID) }
                state.released = true
                defer { state.releaseSignal = nil }
                return (state.releaseSignal, state.grantedPID)
            }
            store.heldLocks.withLock { held in
                if held[key] == pid { held[key] = nil }
            }
            signal?.resume()
        }
    }
}
#endif
