import Foundation
import Logging
import Testing
import OAuthFlowTestSupport
import OAuthFlow

@Suite struct ProviderRegistryTests {
    /// A directory that cannot be listed says why in the system's words (a newcomer saw Foundation's "The operation
    /// could not be completed. (NSCocoaErrorDomain error 256.)").
    @Test func aDirectoryThatCannotBeListedSaysWhy() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let file = base.appendingPathComponent("file.yaml")
        try Data().write(to: file)
        let loop = base.appendingPathComponent("loop")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
        for (directory, words) in [(file, "it is a file, not a directory"), (loop, "symbolic link loop"), (base.appendingPathComponent("none"), "no such file or directory")] {
            let error = try #require(throws: ProviderError.self) { try ProviderRegistry.descriptorFileNames(in: directory) }
            #expect(error.message.contains(words) && !error.message.contains("NSCocoaErrorDomain"), "\(error.message)")
        }
    }

    private let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]

    @Test func bundledProvidersLoadAndSelectByName() throws {
        let registry = try ProviderRegistry.load(environment: isolated)
        #expect(registry.ids.count >= 8)
        for id in ["google", "cloudentity", "auth0", "github", "microsoft", "okta", "keycloak", "gitlab"] {
            #expect(try registry.descriptor(named: id).id == id)
            #expect(registry.entry(named: id)?.origin == .bundled)
        }
        let google = try registry.descriptor(named: "google").resolve()
        #expect(google.endpoints.token?.absoluteString == "https://oauth2.googleapis.com/token")
        #expect(google.policy.scopes.offlineParameters["access_type"] == "offline")
        let auth0 = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])
        #expect(auth0.issuer?.absoluteString == "https://example.us.auth0.com/")
        #expect(auth0.policy.tokenRequest.encoding == .json)
    }

    @Test func cloudentityResolvesWithAndWithoutRegion() throws {
        let cloudentity = try ProviderRegistry.load(environment: isolated).descriptor(named: "cloudentity")
        let withRegion = try cloudentity.resolve(["tenant": "oauth2c", "region": "us", "workspace": "demo"])
        #expect(withRegion.issuer?.absoluteString == "https://oauth2c.us.authz.cloudentity.io/oauth2c/demo")
        #expect(withRegion.discoveryURL?.absoluteString == "https://oauth2c.us.authz.cloudentity.io/oauth2c/demo/.well-known/openid-configuration")
        let without = try cloudentity.resolve(["tenant": "rtest", "workspace": "ce-dev-playground-integrations"])
        #expect(without.endpoints.token?.absoluteString == "https://rtest.authz.cloudentity.io/rtest/ce-dev-playground-integrations/oauth2/token")
        #expect(without.resources.entries.map(\.title) == ["Transfer", "Balance", "Some name", "Phone"])
    }

    @Test func unknownNameSuggestsTheClosest() throws {
        let registry = try ProviderRegistry.load(environment: isolated)
        let error = try #require(throws: ProviderError.self) { try registry.descriptor(named: "gooogle") }
        #expect(error.code == .unknownProvider)
        #expect(error.message.contains("did you mean `google`"))
    }

    @Test func laterDirectoryOverridesAndLogsIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("google.yaml", descriptorText(id: "google", displayName: "Google (corporate)"))
        let handler = CapturingLogHandler()
        let logger = Logger(label: "test", factory: { _ in handler })
        let registry = try ProviderRegistry.load(directories: [directory.url], environment: isolated, logger: logger)
        #expect(try registry.descriptor(named: "google").displayName == "Google (corporate)")
        #expect(handler.messages.contains { $0.contains("provider overridden") && $0.contains("google") && $0.contains("bundled") })
    }

    @Test func droppingAFileAddsAProvider() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("acme.yaml", descriptorText(id: "acme", displayName: "Acme SSO"))
        let registry = try ProviderRegistry.load(directories: [directory.url], includeBundled: false, environment: isolated)
        #expect(registry.ids == ["acme"])
        #expect(try registry.descriptor(named: "acme").displayName == "Acme SSO")
    }

    @Test func userDirectoryComesFromXDGConfigHome() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("oauthflow/providers/mine.yaml", descriptorText(id: "mine"))
        let registry = try ProviderRegistry.load(includeBundled: false, includeUserDirectory: true,
                                                 environment: ["XDG_CONFIG_HOME": directory.url.path])
        #expect(registry.ids == ["mine"])
        #expect(registry.entry(named: "mine")?.origin == .user(directory.url.appendingPathComponent("oauthflow/providers").path))
        let viaHome = ProviderRegistry.userProvidersDirectory(environment: ["HOME": "/home/someone"])
        #expect(viaHome.path == "/home/someone/.config/oauthflow/providers")
    }

    @Test func hostsDoNotReadTheUsersDirectoryUnlessAsked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("oauthflow/providers/broken.yaml", "id: [")
        try directory.write("oauthflow/providers/google.yaml", descriptorText(id: "google", displayName: "Not Google"))
        let environment = ["XDG_CONFIG_HOME": directory.url.path]
        let registry = try ProviderRegistry.load(environment: environment)
        #expect(try registry.descriptor(named: "google").displayName == "Google")
        #expect(registry.skipped.isEmpty)
        // Asked to read it, the broken file is skipped and reported, not fatal.
        let withUser = try ProviderRegistry.load(includeUserDirectory: true, environment: environment)
        #expect(withUser.skipped.map(\.name) == ["broken"])
        #expect(try withUser.descriptor(named: "google").displayName == "Not Google")
    }

    @Test func lookupByNameReadsOnlyThatProvidersFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("broken.yaml", "id: [")
        try directory.write("mine.yaml", descriptorText(id: "mine", displayName: "Mine"))
        try directory.write("google.yaml", descriptorText(id: "google", displayName: "Our Google"))
        #expect(try ProviderRegistry.descriptor(named: "mine", directories: [directory.url]).displayName == "Mine")
        #expect(try ProviderRegistry.descriptor(named: "google", directories: [directory.url]).displayName == "Our Google")
        #expect(try ProviderRegistry.descriptor(named: "auth0", directories: [directory.url]).id == "auth0")
        // Unknown names fall back to the full load, whose error names the file it skipped.
        let unknown = try #require(throws: ProviderError.self) { try ProviderRegistry.descriptor(named: "nobody", directories: [directory.url]) }
        #expect(unknown.code == .unknownProvider)
        #expect(unknown.message.contains("skipped as unreadable: `broken`"), "\(unknown)")
    }

    @Test func duplicateIDInOneDirectoryNamesBothFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("a.yaml", descriptorText(id: "same"))
        try directory.write("b.yml", descriptorText(id: "same"))
        let registry = try ProviderRegistry.load(directories: [directory.url], includeBundled: false, environment: isolated)
        let error = try #require(throws: ProviderError.self) { try registry.descriptor(named: "same") }
        #expect(error.code == .duplicateID)
        #expect(error.message.contains("a.yaml") && error.message.contains("b.yml"))
    }

    @Test func invalidFileAffectsOnlyItselfAndIsReportedWithPositions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("broken.yaml", descriptorText(id: "broken", extra: "scopes: [a\n"))
        try directory.write("mine.yaml", descriptorText(id: "mine", displayName: "Mine"))
        let registry = try ProviderRegistry.load(directories: [directory.url], environment: isolated)
        #expect(try registry.descriptor(named: "mine").displayName == "Mine")
        #expect(try registry.descriptor(named: "google").id == "google")
        #expect(registry.ids.contains("mine") && !registry.ids.contains("broken"))
        #expect(registry.skipped.map(\.name) == ["broken"])
        let error = try #require(throws: ProviderError.self) { try registry.descriptor(named: "broken") }
        #expect(error == registry.skipped.first?.error)
        #expect(error.code == .invalidDescriptor)
        let problem = try #require(error.problems.first)
        #expect(problem.location.path.hasSuffix("broken.yaml"))
        #expect(problem.location.line >= 9)
        #expect(error.description.contains("broken.yaml:"))
    }

    @Test func aBrokenFileNamedAfterABundledProviderIsReportedWhenThatProviderIsAskedFor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("google.yaml", "id: [")
        let registry = try ProviderRegistry.load(directories: [directory.url], environment: isolated)
        // The file was meant to replace the bundled google: using the bundled one silently would hide that.
        #expect(throws: ProviderError.self) { try registry.descriptor(named: "google") }
        #expect(try registry.descriptor(named: "github").id == "github")
    }
}

/// Docs/host-code.md's registry paragraph: the lazy lookup it shows inside its prose, compiled and run here.
@Suite struct ReadmeRegistryLookupTests {
    static let shownCall = #"try ProviderRegistry.descriptor(named: "auth0", directories: directories).resolve(variables)"#

    @Test func readmeShowsTheLazyLookupAndItSkipsABrokenNeighbour() throws {
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/host-code.md"), encoding: .utf8)
        #expect(guide.contains("`\(Self.shownCall)`"), "Docs/host-code.md no longer shows `\(Self.shownCall)`")
        #expect(guide.contains("`registry.skipped`"))
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("broken.yaml", "id: [")
        let directories = [directory.url]
        let variables = ["domain": "example.us.auth0.com"]
        let auth0 = try ProviderRegistry.descriptor(named: "auth0", directories: directories).resolve(variables)
        #expect(auth0.endpoints.authorization?.absoluteString == "https://example.us.auth0.com/authorize")
    }
}

/// `oauthflow providers list` with a broken file beside good ones: the others are listed, the broken one is named.
@Suite struct ProvidersListSkipTests {
    @Test func aBrokenFileIsNamedOnStderrAndTheOthersAreListed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("broken.yaml", "id: [")
        try directory.write("mine.yaml", descriptorText(id: "mine", displayName: "Mine"))
        let result = try await runProduct("oauthflow", ["providers", "list", "--providers-dir", directory.url.path],
                                          environment: ["XDG_CONFIG_HOME": directory.url.appendingPathComponent("config").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("mine") && result.stdout.contains("google"))
        #expect(result.stderr.contains("warning: skipped: the descriptor file") && result.stderr.contains("broken.yaml"), "\(result.stderr)")
    }
}
