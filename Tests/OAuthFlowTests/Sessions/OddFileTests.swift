import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Named pipes, devices, links and loose directories where descriptors, resource lists and sessions should be.
@Suite struct OddFileTests {
    private static let descriptor = """
        schema_version: 1
        id: odd
        display_name: Odd
        protocol: oauth2
        endpoints:
          authorization: https://auth.example.com/authorize
          token: https://auth.example.com/token

        """

    @Test func aNamedPipeIsRefusedWithoutHanging() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fifo = directory.url.appendingPathComponent("pipe.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let document = DescriptorDocument.load(contentsOf: URL(fileURLWithPath: fifo))
        #expect(document.problems.first?.message.contains("named pipe (FIFO)") == true, "\(document.problems)")
        // A registry directory holding the pipe skips it with that sentence instead of blocking.
        let registry = try ProviderRegistry.load(directories: [directory.url], includeBundled: false, includeUserDirectory: false)
        let error = try #require(throws: ProviderError.self) { try registry.descriptor(named: "pipe") }
        #expect(error.description.contains("named pipe"))
    }

    @Test func devicesAreNotRegularFiles() {
        let document = DescriptorDocument.load(contentsOf: URL(fileURLWithPath: "/dev/zero"))
        #expect(document.problems.first?.message == "cannot read the file: it is a character device, not a regular file; only regular files are read")
    }

    @Test func aSymlinkLoopIsCalledOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let loop = directory.url.appendingPathComponent("loop.yaml").path
        #expect(symlink(loop, loop) == 0)
        let document = DescriptorDocument.load(contentsOf: URL(fileURLWithPath: loop))
        #expect(document.problems.first?.message.contains("symbolic link loop") == true, "\(document.problems)")
    }

    @Test func aNamedPipeAtTheSessionPathIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession("other"))
        let path = store.path(for: SessionKey(providerID: "example"))
        #expect(mkfifo(path, 0o600) == 0)
        let error = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(error.code == .notARegularFile)
        #expect(error.message.contains("named pipe"))
    }

    @Test func readingRefusesALooseOrLinkedStateDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        chmod(store.directory.path, 0o755)
        let loose = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(loose.code == .insecurePermissions)
        chmod(store.directory.path, 0o700)
        let link = directory.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: store.directory)
        let linked = try await #require(throws: TokenStoreError.self) { try await FileTokenStore(directory: link).load(SessionKey(providerID: "example")) }
        #expect(linked.code == .notARegularFile)
    }

    @Test func aCorruptSessionIsSetAsideNotOverwritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        let path = store.path(for: SessionKey(providerID: "example"))
        try Data("{ half a session".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        try await store.save(sampleSession(access: "new"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.contains(".json.corrupt-") }
        #expect(kept.count == 1)
        #expect(try String(contentsOfFile: store.directory.appendingPathComponent(kept[0]).path, encoding: .utf8) == "{ half a session")
        #expect(try await store.load(SessionKey(providerID: "example"))?.tokens.accessToken.value == "new")
    }

    /// Names that lead out of the descriptors' directory: an absolute path (on Linux the process's environment), `..`, `~`.
    static let outsideNames: [String] = {
        #if os(Linux)
        let absolute = "/proc/self/environ"
        #else
        let absolute = "/etc/hosts"
        #endif
        return [absolute, "../outside.json", "sub/../../outside.json", "~/outside.json"]
    }()

    @Test(arguments: outsideNames)
    func resourcesFileStaysInTheDescriptorsDirectory(_ name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("outside.json", #"[{"scope": "SECRET-CONTENT", "title": "t", "url": "https://x"}]"#)
        let file = try directory.write("providers/odd.yaml", Self.descriptor + "resources_file: '\(name)'\n")
        let descriptor = try #require(DescriptorDocument.load(contentsOf: file).descriptor)
        let error = try #require(throws: ProviderError.self) { try descriptor.resourceTemplates() }
        #expect(error.code == .invalidResources)
        #expect(error.message.contains("relative to the descriptor's directory"))
    }

    @Test func resourcesFileCannotLinkOutOrEchoItsContents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("outside.json", #"[{"scope": "s", "title": "t", "url": "https://x"}]"#)
        let file = try directory.write("providers/odd.yaml", Self.descriptor + "resources_file: linked.json\n")
        try FileManager.default.createSymbolicLink(atPath: directory.url.appendingPathComponent("providers/linked.json").path,
                                                   withDestinationPath: directory.url.appendingPathComponent("outside.json").path)
        let descriptor = try #require(DescriptorDocument.load(contentsOf: file).descriptor)
        let linked = try #require(throws: ProviderError.self) { try descriptor.resourceTemplates() }
        #expect(linked.message.contains("leads outside"))

        try directory.write("providers/broken.json", "TOP-SECRET=hunter2\n{{{")
        let broken = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                           Self.descriptor + "resources_file: broken.json\n")).descriptor)
        let error = try #require(throws: ProviderError.self) { try broken.resourceTemplates() }
        #expect(!error.description.contains("hunter2") && !error.description.contains("TOP-SECRET"))

        try directory.write("providers/good.json", #"[{"scope": "read", "title": "Read", "url": "https://api.example.com/read"}]"#)
        let good = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                         Self.descriptor + "resources_file: good.json\n")).descriptor)
        #expect(try good.resourceTemplates().map(\.scope) == ["read"])
    }
}

extension OddFileTests {
    /// A resources file is held to a descriptor's budgets, with positioned errors.
    @Test func resourcesFileHasTheDescriptorsBudgets() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // One anchor and 200,000 aliases: about 1 MB that used to cost seconds of CPU on every command.
        let bomb = "- &e {scope: s, title: t, url: 'https://api.example.com/x'}\n" + String(repeating: "- *e\n", count: 200_000)
        try directory.write("providers/bomb.yaml", bomb)
        let bombed = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                           Self.descriptor + "resources_file: bomb.yaml\n")).descriptor)
        let clock = ContinuousClock()
        let started = clock.now
        let error = try #require(throws: ProviderError.self) { try bombed.resourceTemplates() }
        #expect(error.message.contains("bomb.yaml:") && (error.message.contains("larger than") || error.message.contains("expands")), "\(error)")
        // A bound against seconds of CPU per command, loose enough for two cores shared by the whole suite.
        #expect(clock.now - started < .seconds(60))
        // Under the size cap, the expansion is what counts: 20,000 aliases of a 3-field mapping.
        let small = "- &e {scope: s, title: t, url: 'https://api.example.com/x'}\n" + String(repeating: "- *e\n", count: 20_000)
        try directory.write("providers/small.yaml", small)
        let expanded = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                             Self.descriptor + "resources_file: small.yaml\n")).descriptor)
        let expansion = try #require(throws: ProviderError.self) { try expanded.resourceTemplates() }
        #expect(expansion.message.contains("small.yaml:1:1") && expansion.message.contains("expands to more than"), "\(expansion)")

        let long = "https://api.example.com/" + String(repeating: "a", count: 400_000)
        try directory.write("providers/long.json", #"[{"scope": "s", "title": "t", "url": "\#(long)"}]"#)
        let longURL = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                           Self.descriptor + "resources_file: long.json\n")).descriptor)
        let tooLong = try #require(throws: ProviderError.self) { try longURL.resourceTemplates() }
        #expect(tooLong.message.contains("long.json:1:") && tooLong.message.contains("longer than 2048 bytes"), "\(tooLong.message.prefix(300))")
        #expect(tooLong.message.count < 2_000, "the 400 KB URL is not echoed")

        try directory.write("providers/typo.yaml", "- scope: read\n  title: Read\n  ulr: https://api.example.com/read\n")
        let typo = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                         Self.descriptor + "resources_file: typo.yaml\n")).descriptor)
        let misspelt = try #require(throws: ProviderError.self) { try typo.resourceTemplates() }
        #expect(misspelt.message.contains("typo.yaml:3:3"), "\(misspelt.message)")
    }

    @Test func aDirectoryAsResourcesFileIsCalledOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let descriptor = try #require(DescriptorDocument.load(contentsOf: try directory.write("providers/odd.yaml",
                                                                                               Self.descriptor + "resources_file: .\n")).descriptor)
        let error = try #require(throws: ProviderError.self) { try descriptor.resourceTemplates() }
        #expect(error.message.contains("is a directory, not a file"), "\(error)")
        #expect(!error.message.contains("symbolic link"))
    }
}
