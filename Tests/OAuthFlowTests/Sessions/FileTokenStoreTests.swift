import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func mode(_ path: String) -> mode_t {
    var info = stat()
    lstat(path, &info)
    return info.st_mode & 0o777
}

@Suite struct FileTokenStoreTests {
    @Test func roundTripWithPrivatePermissions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state/oauthflow"))
        let session = sampleSession()
        try await store.save(session)
        #expect(try await store.load(session.key) == session)
        #expect(mode(store.directory.path) == 0o700)
        #expect(mode(store.path(for: session.key)) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
        try await store.remove(session.key)
        #expect(try await store.load(session.key) == nil)
        try await store.remove(session.key)
    }

    /// A host's own file beside the sessions: 0600 and whole, and never a session's name or a path out of the directory.
    @Test func aHostsOwnFileIsPrivateAndCannotReplaceASession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state/oauthflow"))
        try store.writePrivateFile(Data("one".utf8), named: "cache.memo")
        try store.writePrivateFile(Data("two".utf8), named: "cache.memo")
        let path = store.directory.path + "/cache.memo"
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        #expect(mode(path) == 0o600)
        let session = sampleSession()
        try await store.save(session)
        let sessionName = URL(fileURLWithPath: store.path(for: session.key)).lastPathComponent
        // The store's own names, as a file system that ignores case would read them too.
        let own = [sessionName, sessionName.uppercased(), sessionName + ".lock", sessionName + ".corrupt-1", "x.pending.json"]
        for name in own + ["", ".", "..", ".memo", "../escape.memo", "sub/x.memo", "x\u{0}.memo", "x.txt"] {
            #expect(throws: TokenStoreError.self, "\(name.debugDescription)") { try store.writePrivateFile(Data("x".utf8), named: name) }
        }
        #expect(try await store.load(session.key) == session)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("state/escape.memo").path))
    }

    @Test func defaultLocationFollowsXDGStateHome() {
        #expect(FileTokenStore.standardDirectory(environment: ["XDG_STATE_HOME": "/srv/state"]).path == "/srv/state/oauthflow")
        #expect(FileTokenStore.standardDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/oauthflow")
    }

    @Test func namesCannotEscapeTheDirectory() {
        let store = FileTokenStore(directory: URL(fileURLWithPath: "/s"))
        let path = store.path(for: SessionKey(providerID: "../../etc/passwd", account: "x/y"))
        #expect(path == "/s/%2E.%2F..%2Fetc%2Fpasswd--x%2Fy.json")
        #expect(URL(fileURLWithPath: path).deletingLastPathComponent().path == "/s")
        #expect(store.path(for: SessionKey(providerID: ".hidden")).hasPrefix("/s/%2Ehidden"))
    }

    @Test func corruptFileIsReportedAndKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        let path = store.path(for: SessionKey(providerID: "example"))
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let error = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("left in place"))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func looseFilePermissionsAreRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        let path = store.path(for: SessionKey(providerID: "example"))
        chmod(path, 0o644)
        let error = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(error.code == .insecurePermissions)
        chmod(store.directory.path, 0o755)
        let directoryError = try await #require(throws: TokenStoreError.self) { try await store.save(sampleSession()) }
        #expect(directoryError.code == .insecurePermissions)
    }

    @Test func plantedSymlinkIsNeitherReadNorWrittenThrough() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession("other"))
        let victim = directory.url.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let path = store.path(for: SessionKey(providerID: "example"))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim.path)

        let error = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(error.code == .notARegularFile)

        try await store.save(sampleSession())
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try await store.load(SessionKey(providerID: "example")) == sampleSession())
    }

    @Test func symlinkedDirectoryIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let elsewhere = directory.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let link = directory.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
        let error = try await #require(throws: TokenStoreError.self) { try await FileTokenStore(directory: link).save(sampleSession()) }
        #expect(error.code == .notARegularFile)
    }

    @Test func abandonedTemporaryFilesAreRemovedOnceOld() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        let old = store.directory.appendingPathComponent(".abandoned.tmp").path
        let fresh = store.directory.appendingPathComponent(".in-progress.tmp").path
        for path in [old, fresh] { _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8)) }
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, old, &times, 0) == 0)
        try await store.save(sampleSession())
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(FileManager.default.fileExists(atPath: fresh), "a recent temporary file may be another writer's")
    }

    @Test func killedWriterNeverLeavesACorruptOrMissingFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storeDirectory = directory.url.appendingPathComponent("s")
        let store = FileTokenStore(directory: storeDirectory)
        let key = SessionKey(providerID: "torture")
        let writer = try builtProduct("StoreWriter")
        var lastSequence = 0.0
        for round in 0..<60 {
            let process = try ChildProcess(writer, [storeDirectory.path])
            // Wait for one complete save, then kill at a moment that varies from round to round.
            await process.output()
            try await Task.sleep(nanoseconds: UInt64(1 + (round * 7) % 23) * 1_000_000)
            process.send(SIGKILL)
            #expect(await process.exit() == .signalled(SIGKILL))
            let session = try #require(try await store.load(key), "the session vanished after round \(round)")
            let sequence = try #require(session.tokens.additionalFields["n"]?.numberValue)
            #expect(session.tokens.accessToken.value.hasPrefix("access-\(Int(sequence))-"))
            #expect(session.tokens.refreshToken?.value == "refresh-\(Int(sequence))")
            lastSequence = sequence
        }
        #expect(lastSequence >= 1)
    }
}
