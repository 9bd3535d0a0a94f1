import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore {
    /// Two reserved files: the first becomes the record of the refresh answer
    /// (`NAME.received.json`), the second carries the checked session over the session file.
    ///
    /// With ``answerRecorder(refreshing:)``, the record is put in place before the request is
    /// sent, holding the session to keep and no answer yet; the answer is then one `pwrite`
    /// into it on the thread that read it. Without, ``record(_:)`` writes and renames it.
    final class Reservation: TokenStoreReservation, @unchecked Sendable {
        private let store: FileTokenStore
        private let received: AtomicFile
        private let committed: AtomicFile
        private let key: SessionKey
        /// `NAME.received.json`, worked out ahead: nothing but writing stands between an answer and its record.
        private let receivedPath: String
        private let lock = NSLock()
        private var state = State.reserved

        /// - `reserved`: the record file has its temporary name;
        /// - `placed`: it is at `NAME.received.json`, with no answer yet (recovery leaves it alone);
        /// - `answered`: the answer is in it, not yet fsynced; `recorded`: durable.
        private enum State { case reserved, placed, answered, recorded, finished }

        init(store: FileTokenStore, received: AtomicFile, committed: AtomicFile, key: SessionKey) {
            self.store = store
            self.received = received
            self.committed = committed
            self.key = key
            receivedPath = store.receivedPath(for: key)
        }

        func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)? {
            guard let header = try? RefreshAnswerRecord.header(keeping: session, encode: FileTokenStore.encode) else { return nil }
            let placed = lock.withLock { () -> Bool in
                // (Through the same calls the answer will take: their first run in a process is the slow one.)
                guard state == .reserved, received.writeAll(header, at: 0),
                    received.writeAll(RefreshAnswerRecord.noAnswerYet, at: header.count),
                    !RefreshAnswerRecord.frame(RefreshAnswerRecord.noAnswerYet).isEmpty,
                    rename(received.path, receivedPath) == 0
                else { return false }
                state = .placed
                return true
            }
            guard placed else { return nil }
            return { [self] answer in
                let framed = RefreshAnswerRecord.frame(answer)
                lock.withLock {
                    guard state == .placed, received.writeAll(framed, at: header.count) else { return }
                    state = .answered
                }
            }
        }

        func record(_ session: StoredSession) async throws {
            try lock.withLock {
                switch state {
                case .reserved:
                    // Nothing slow before the rename: the fsyncs come after it.
                    try received.write(try FileTokenStore.encode(session))
                    state = .recorded
                    try received.installThenSync(at: receivedPath)
                case .answered:
                    state = .recorded
                    try received.sync(installedAt: receivedPath)
                case .placed:
                    // The answer never reached the recorder (a transport that does not report arrivals): the
                    // placed record says "no answer"; replace it with the session.
                    let file = try AtomicFile(in: store.directory)
                    do {
                        try file.write(try FileTokenStore.encode(session))
                        try file.installThenSync(at: receivedPath)
                    } catch {
                        file.discard()
                        throw error
                    }
                    received.closeFile()
                    state = .recorded
                case .recorded, .finished:
                    break
                }
            }
        }

        func commit(_ session: StoredSession) async throws {
            try lock.withLock {
                guard state != .finished else { return }
                try committed.fill(with: try FileTokenStore.encode(session))
                try committed.install(at: store.path(for: key))
                finish()
                store.syncDirectory()
            }
        }

        func abandon() async {
            lock.withLock {
                if state != .finished { committed.discard() }
                finish()
            }
        }

        /// Drops the record file, whatever its state (the committed file is done with).
        private func finish() {
            switch state {
            case .reserved:
                received.discard()
            case .placed, .answered:
                received.closeFile()
                unlink(receivedPath)
            case .recorded:
                // The session file now holds the recorded refresh token; recovery would drop the record anyway.
                unlink(receivedPath)
            case .finished:
                break
            }
            state = .finished
        }

        deinit {
            switch state {
            case .reserved:
                received.discard()
                committed.discard()
            case .placed:
                // Dropped before any answer: nothing to keep.
                received.closeFile()
                unlink(receivedPath)
                committed.discard()
            case .answered:
                received.closeFile()
                committed.discard()
            case .recorded:
                committed.discard()
            case .finished: break
            }
        }
    }
}
