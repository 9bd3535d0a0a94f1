import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A refresh interrupted between its answer and the answer's ID-token check: what the next
/// run adopts. Only the new refresh token may be kept; the identity stays the verified one
/// (OpenID Connect Core §12.2, §3.1.3.7).
@Suite struct InterruptedRefreshTests {
    @Test func aRecordedAnswerWithAnUncheckedIDTokenKeepsOnlyItsRefreshToken() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let received = store.path(for: session.key).replacingOccurrences(of: ".json", with: ".received.json")
        // Recorded: the record holds the answer (it is placed, saying "no answer yet", before the request).
        let task = try await InterruptedRefresh.stalledRefresh(store: store, key: session.key) {
            guard let data = FileManager.default.contents(atPath: received) else { return false }
            return (try? RefreshAnswerRecord.contents(of: data, path: received) { json, _ in try StoredSession.decoded(from: json) })?.answered == true
        }
        // The next command, while the first is stuck (or after it was killed): a store of its own.
        let adopted = try await FileTokenStore(directory: store.directory).load(session.key)
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(adopted)
        await task.value
        // The stalled check failed in the end: the same is kept, and the record is gone.
        #expect(!FileManager.default.fileExists(atPath: received))
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await store.load(session.key))
    }

    @Test func aRecordWhoseRefreshTokenTheSessionAlreadyHoldsIsDropped() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        var session = InterruptedRefresh.session()
        try await store.save(session)
        // A refresh that recorded, committed the checked session, and died before removing the record.
        let reservation = try await store.reserve(session.key)
        var recorded = session
        recorded.tokens = TokenSet(accessToken: Secret("access-2"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("refresh-2"),
                                   idToken: nil, scopes: [], issuedAt: Date()).keepingRefreshToken(of: session.tokens)
        try await reservation.record(recorded)
        session.tokens.accessToken = Secret("access-2")
        session.tokens.refreshToken = Secret("refresh-2")
        session.tokens.expiresAt = Date().addingTimeInterval(3600)
        try await FileTokenStore(directory: store.directory).save(session)
        let loaded = try await FileTokenStore(directory: store.directory).load(session.key)
        #expect(loaded?.tokens.accessToken.value == "access-2", "the committed session wins over a stale record of the same refresh")
        #expect(loaded?.tokens.isExpired(at: Date()) == false)
        await reservation.abandon()
    }

    @Test func aForgedIDTokenIsRefusedLiveAndOnlyItsRefreshTokenIsKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let transport = ScriptedTransport { request, _ in
            if request.url.path == "/jwks" {
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"keys":[]}"#.utf8))
            }
            let body = #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2","id_token":"\#(InterruptedRefresh.forgedIDToken)"}"#
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let client = OAuthClient(provider: try InterruptedRefresh.provider(), configuration: ClientConfiguration(
            clientID: "client", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
        await #expect(throws: IDTokenError.self) { try await TokenManager(client: client, store: store, key: session.key).refresh() }
        // The server has spent refresh-1: the session keeps refresh-2, and nothing else of the refused answer.
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await FileTokenStore(directory: store.directory).load(session.key))
    }
}

extension InterruptedRefreshTests {
    /// A stored session whose refresh died right after `answer`'s last byte was read and recorded (the caller cleans up).
    static func diedOnArrival(of answer: String) async throws -> (TemporaryDirectory, FileTokenStore, StoredSession) {
        let directory = try TemporaryDirectory()
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        let session = InterruptedRefresh.session()
        try await store.save(session)
        do {
            let reservation = try await store.reserve(session.key)
            let recorder = try #require(reservation.answerRecorder(refreshing: session))
            recorder(Data(answer.utf8))
        }
        return (directory, store, session)
    }

    /// What the next run loads after a refresh whose process died right after `answer`'s last byte was read.
    static func loadAfterDyingOnArrival(of answer: String) async throws -> StoredSession? {
        let (directory, store, session) = try await diedOnArrival(of: answer)
        defer { directory.cleanUp() }
        return try await FileTokenStore(directory: store.directory).load(session.key)
    }

    @Test(arguments: [
        #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2","id_token":"x.y.z"}"#,
        "access_token=access-2&token_type=bearer&refresh_token=refresh-2",
    ])
    func aRawAnswerRecordedOnArrivalKeepsOnlyItsRefreshToken(answer: String) async throws {
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await Self.loadAfterDyingOnArrival(of: answer))
    }

    @Test func aRawAnswerWithoutARefreshTokenKeepsTheSessionsOwn() async throws {
        let loaded = try await Self.loadAfterDyingOnArrival(of: #"{"access_token":"access-2","token_type":"Bearer"}"#)
        let session = InterruptedRefresh.session()
        #expect(loaded?.tokens.refreshToken == session.tokens.refreshToken, "a server that does not rotate leaves the old one valid")
        #expect(loaded?.tokens.idToken?.value == InterruptedRefresh.verifiedIDToken)
        #expect(loaded?.tokens.isExpired(at: Date()) == true)
    }

    /// The first command after the kill recovers the record; every later one, each a store of its
    /// own as another process would have, reads what it left on disk: a plain session, atomically written.
    @Test func aRecoveredRecordLeavesASessionEveryLaterReaderReads() async throws {
        let (directory, store, session) = try await Self.diedOnArrival(
            of: #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2"}"#)
        defer { directory.cleanUp() }
        for reader in 0..<3 {
            let loaded = try await FileTokenStore(directory: store.directory).load(session.key)
            #expect(loaded?.tokens.refreshToken?.value == "refresh-2", "reader \(reader)")
        }
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: store.path(for: session.key)))
        #expect(!RefreshAnswerRecord.isRecord(onDisk))
        #expect(try StoredSession.decoded(from: onDisk).tokens.refreshToken?.value == "refresh-2")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(!names.contains { $0.hasSuffix(".received.json") || $0.hasSuffix(".tmp") || $0.contains(".corrupt-") }, "\(names)")
        var info = stat()
        #expect(lstat(store.path(for: session.key), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// A session file that an earlier OAuthFlow's recovery left as a record (renamed over it) reads
    /// as the session it says to keep, and is rewritten as a plain session.
    @Test func aRecordLeftAsTheSessionFileIsReadAndRewritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let header = try RefreshAnswerRecord.header(keeping: session) { try $0.encoded(readable: true) }
        let answer = Data(#"{"access_token":"access-2","token_type":"Bearer","refresh_token":"refresh-2"}"#.utf8)
        let record = header + Data(RefreshAnswerRecord.frame(answer))
        let path = store.path(for: session.key)
        try record.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        for reader in 0..<2 {
            let loaded = try await FileTokenStore(directory: store.directory).load(session.key)
            #expect(loaded?.tokens.refreshToken?.value == "refresh-2", "reader \(reader)")
            #expect(loaded?.tokens.isExpired(at: Date()) == true)
        }
        #expect(try StoredSession.decoded(from: Data(contentsOf: URL(fileURLWithPath: path))).tokens.refreshToken?.value == "refresh-2")
    }

    /// Garbage where the record goes (a bad length, an oversized file) is set aside and the session is read; a link or
    /// a directory there is refused, as everywhere in the store, and the session file is left as it is.
    @Test func oddFilesWhereTheRecordGoesNeverCostTheSession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let received = store.path(for: session.key).replacingOccurrences(of: ".json", with: ".received.json")
        for garbage in [Data("oauthflow-refresh-answer 1\n-5\n".utf8), Data("oauthflow-refresh-answer 1\n99999999999999999999999\n{}".utf8),
                        Data(count: 2 << 20), Data("\u{1B}[2J\u{9B}31m".utf8)] {
            try garbage.write(to: URL(fileURLWithPath: received))
            chmod(received, 0o600)
            #expect(try await FileTokenStore(directory: store.directory).load(session.key)?.tokens.refreshToken == session.tokens.refreshToken)
            #expect(!FileManager.default.fileExists(atPath: received), "set aside")
        }
        // A link to a file of the test's own: nothing outside the temporary directory is ever touched.
        let elsewhere = directory.url.appendingPathComponent("elsewhere").path
        try Data("not a record".utf8).write(to: URL(fileURLWithPath: elsewhere))
        symlink(elsewhere, received)
        await #expect(throws: TokenStoreError.self) { _ = try await store.load(session.key) }
        unlink(received)
        #expect(try await store.load(session.key)?.tokens.refreshToken == session.tokens.refreshToken)
    }
}

