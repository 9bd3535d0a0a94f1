import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

/// The launcher's `credential git erase` removes a session under the lock `FileTokenStore`'s refreshes hold.
@Suite struct SessionFilesTests {
    @Test(.timeLimit(.minutes(1))) func aLockedRemovalWaitsForARefreshUnderWayAndRemovesWhatItStored() async throws {
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        let store = FileTokenStore(directory: files.url.appendingPathComponent("sessions"))
        var session = sampleSession("github")
        let key = session.key
        try await store.save(session)
        // Another process's refresh: it holds the session's lock while it stores the rotated tokens.
        let lock = try await store.lock(key)
        let removed = Removal(directory: store.directory.path, key: key)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(!removed.isDone, "the removal waits for the lock")
        session.tokens.refreshToken = Secret("refresh-2")
        try await store.save(session)
        lock.release()
        #expect(await removed.result() == nil)
        #expect(try await store.load(key) == nil, "the session stays removed")
    }

    /// `SessionFiles.removeLocked` on a thread of its own: it blocks on the lock, as the launcher does.
    final class Removal: @unchecked Sendable {
        private let condition = NSCondition()
        private var outcome: Int32??

        init(directory: String, key: SessionKey) {
            Thread.detachNewThread { [self] in
                let code = SessionFiles.removeLocked(providerID: key.providerID, account: key.account, directory: directory)
                condition.lock()
                outcome = .some(code)
                condition.broadcast()
                condition.unlock()
            }
        }

        var isDone: Bool {
            condition.lock()
            defer { condition.unlock() }
            return outcome != nil
        }

        /// The removal's `errno`, or nil, once it finished (waited for off the cooperative pool).
        func result() async -> Int32? {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { [self] in
                    condition.lock()
                    // blocks: a thread of its own, not the task pool's.
                    while outcome == nil { condition.wait() }
                    let code = outcome ?? nil
                    condition.unlock()
                    continuation.resume(returning: code)
                }
            }
        }
    }
}
