import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowPostgres
import PostgresNIO
@testable import oauthflow

/// Every shell and Swift example in README.md, Docs/*.md and the DocC catalogs' hand-written articles (`Sources/*/*.docc`;
/// the articles made from Docs/ hold their guide's blocks, which DocCCatalogTests checks), run or checked, so the docs
/// cannot drift:
///
/// - each `oauthflow` command line parses (and passes `validate()`) as the CLI reads it; those that work
///   offline (`lint`, `providers`, `schema`) run, and their shown output must match what the CLI prints;
/// - the documented `git config` lines configure real git, which then gets a token from `oauthflow`;
/// - build, test and benchmark commands name files, products and bundles that exist;
/// - each Swift block's lines appear in a test source, where they are compiled (and run where they can be);
/// - an example this test does not know how to check fails it, so a new one cannot slip through.
@Suite struct DocExampleTests {
    /// Markdown files with examples. lint-rules.md is generated and tested by RuleExampleTests.
    static let documents = ["README.md"] + ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Docs").path)) ?? [])
        .filter { $0.hasSuffix(".md") && $0 != "lint-rules.md" }.sorted().map { "Docs/" + $0 } + MarkdownFences.handWrittenArticles

    typealias Block = MarkdownFences.Block

    /// The file's fenced blocks as Markdown renders them (MarkdownFenceTests fails on a fence that renders otherwise).
    static func blocks(in file: String) throws -> [Block] {
        try MarkdownFences(contentsOf: file).blocks
    }

    static var allBlocks: [Block] {
        get throws { try documents.flatMap { try blocks(in: $0) } }
    }

    /// A command line as a POSIX shell splits it (``shellWords(_:home:)``).
    static func words(_ line: String, home: String) -> [String] {
        shellWords(line, home: home)
    }

    /// The commands of a shell block: `$ `-prompted lines of a `console` block, every line of an `sh` block;
    /// `a && b` is two commands.
    static func commands(of block: Block, home: String) -> [(text: String, words: [String])] {
        let lines: [String] = block.language == "console"
            ? block.lines.filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) }
            : block.lines
        return lines.flatMap { $0.components(separatedBy: " && ") }
            .map { (text: $0, words: words($0, home: home)) }
            .filter { !$0.words.isEmpty }
    }

    /// The output lines a `console` block shows after a command, up to the next prompt (`...` elides).
    static func shownOutput(of block: Block, after command: String) -> [String] {
        guard let start = block.lines.firstIndex(where: { $0.hasPrefix("$ ") && $0.contains(command) }) else { return [] }
        return Array(block.lines[(start + 1)...].prefix { !$0.hasPrefix("$ ") }).filter { !$0.isEmpty && $0.trimmingCharacters(in: .whitespaces) != "..." }
    }

    /// A home directory holding what the examples name: a user providers directory with a descriptor.
    static func exampleHome() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory()
        let providers = home.url.appendingPathComponent(".config/oauthflow/providers")
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("providers/keycloak.yaml"),
                                         to: providers.appendingPathComponent("keycloak.yaml"))
        return home
    }

    static let offlineCommands: Set<String> = ["lint", "providers", "schema"]

    @Test func shellExamplesParseRunAndShowWhatTheCLIPrints() async throws {
        let home = try Self.exampleHome()
        defer { home.cleanUp() }
        let environment = ["HOME": home.url.path, "XDG_CONFIG_HOME": home.url.appendingPathComponent(".config").path,
                           "XDG_STATE_HOME": home.url.appendingPathComponent("state").path]
        var checked = 0
        for block in try Self.allBlocks where ["sh", "console"].contains(block.language) {
            for command in Self.commands(of: block, home: home.url.path) {
                let place = "\(block.file):\(block.line): `\(command.text)`"
                var words = command.words
                // `swift run [OPTIONS] oauthflow ARGS` from a checkout: its options checked, then the command as the CLI reads it.
                if let command = try Self.oauthflowRun(words, place: place) { words = command }
                switch words.first {
                case "oauthflow":
                    let arguments = Array(words.dropFirst())
                    // Parsing runs every validate(): a usage error here is a documented command that cannot work.
                    do {
                        _ = try OAuthFlowCommand.parseAsRoot(arguments)
                    } catch {
                        Issue.record("\(place) does not parse: \(OAuthFlowCommand.message(for: error))")
                    }
                    // `--online` reaches the provider: CLIAdviceTests checks what it prints against a local server.
                    // `providers add` reads an issuer's document: ProvidersAddCommandTests runs it against a local server.
                    if let name = arguments.first, Self.offlineCommands.contains(name), !arguments.contains("--online"),
                        arguments.prefix(2) != ["providers", "add"]
                    {
                        let result = try await runProduct("oauthflow", arguments, environment: environment)
                        let shown = Self.shownOutput(of: block, after: command.text)
                        // An example that shows an error shows a failing command (lint exits 1 on errors).
                        let expected: Int32 = shown.contains { $0.contains(": error: ") } ? 1 : 0
                        #expect(result.status == expected, "\(place) exits \(result.status): \(result.stderr)")
                        for line in shown {
                            #expect((result.stdout + result.stderr).contains(line), "\(place) no longer prints: \(line)")
                        }
                    }
                case "git":
                    // Run for real by gitConfigLinesMakeGitAskOAuthflow.
                    #expect(words.starts(with: ["git", "config", "--global"]), "\(place): only `git config --global` lines are checked")
                case "bash":
                    #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(words[1]).path), "\(place): no such script")
                case "cd":
                    #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(words[1]).path), "\(place): no such directory")
                case "swift":
                    try Self.checkSwiftCommand(words, place: place)
                case "export":
                    #expect(words.count == 2 && words[1].contains("="), "\(place)")
                default:
                    Issue.record("\(place): DocExampleTests does not know how to check this command; teach it")
                }
                checked += 1
            }
        }
        #expect(checked > 20)
    }

    /// Synopsis blocks (no language) list a command's flags: each must be one the command takes.
    @Test func synopsesNameRealFlags() async throws {
        var checked = 0
        var synopses: [(place: String, commands: [String])] = []
        for block in try Self.allBlocks where block.language.isEmpty {
            // A line starting with `oauthflow` begins a command; indented lines continue it.
            var commands: [String] = []
            for line in block.lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                if line.hasPrefix("oauthflow ") { commands.append(line) } else if !commands.isEmpty { commands[commands.count - 1] += " " + line }
            }
            synopses.append(("\(block.file):\(block.line)", commands))
        }
        // Commands in the prose too: `oauthflow lint --online [--var k=v]...`.
        for file in Self.documents {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8)
            let pattern = try NSRegularExpression(pattern: "`(oauthflow [^`\\n]+)`")
            let spans = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } }
            synopses.append((file, spans.filter { !$0.contains("--generate-completion-script") }))
        }
        // Each command's help is read once, a few at a time: the same commands come back in many places.
        func commandWords(of command: String) -> [String] {
            Array(command.split(separator: " ").dropFirst().prefix { $0.first?.isLowercase == true && !$0.hasPrefix("-") }.map(String.init))
        }
        let distinct = Array(Set(synopses.flatMap { $0.commands.map(commandWords(of:)) }))
        var helps: [[String]: (status: Int32, stdout: String, stderr: String)] = [:]
        for start in stride(from: 0, to: distinct.count, by: 4) {
            try await withThrowingTaskGroup(of: ([String], (status: Int32, stdout: String, stderr: String)).self) { group in
                for words in distinct[start..<min(start + 4, distinct.count)] {
                    group.addTask { (words, try await runProduct("oauthflow", words + ["--help"])) }
                }
                for try await (words, help) in group { helps[words] = help }
            }
        }
        for (place, commands) in synopses {
            let block = (file: place, line: "")
            for command in commands {
                let words = command.split(separator: " ").map(String.init)
                let subcommand = commandWords(of: command)
                let help = try #require(helps[subcommand])
                #expect(help.status == 0, "\(block.file)\(block.line): `\(command)`: `oauthflow \(subcommand.joined(separator: " "))` has no help")
                let flags = words.compactMap { word -> String? in
                    guard let range = word.range(of: #"--[a-z][a-z-]*"#, options: .regularExpression) else { return nil }
                    return String(word[range])
                }
                for flag in Set(flags) {
                    #expect(help.stdout.contains(flag), "\(block.file)\(block.line): `\(command)`: `oauthflow \(subcommand.joined(separator: " "))` has no \(flag)")
                    checked += 1
                }
            }
        }
        #expect(checked > 10)
    }

    /// `swift build|run` lines: their options exist, and a product they run is declared where they run it
    /// (`swift run PRODUCT` for a benchmark, from Benchmarks/; `oauthflow` lines are ``oauthflowRun(_:place:)``'s).
    static func checkSwiftCommand(_ words: [String], place: String) throws {
        #expect(words.count > 1 && ["build", "run"].contains(words[1]), "\(place)")
        let product = Self.productIndex(words).map { words[$0] }
        try Self.checkSwiftOptions(Array(words.dropFirst(2).prefix { $0 != product }), needing: [], place: place)
        if words[1] == "run", let product {
            let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Benchmarks/Package.swift"), encoding: .utf8)
            #expect(manifest.contains("name: \"\(product)\""), "\(place): Benchmarks/Package.swift has no \(product)")
        }
    }

    /// The words from `oauthflow` on when `words` is `swift run [OPTIONS] oauthflow ...`, once its options are checked:
    /// they must enable the package traits the `oauthflow` target demands (its PackageTrait.swift), or it does not build.
    static func oauthflowRun(_ words: [String], place: String) throws -> [String]? {
        guard words.count > 2, words[0] == "swift", words[1] == "run", let at = Self.productIndex(words), words[at] == "oauthflow" else {
            return nil
        }
        try Self.checkSwiftOptions(Array(words[2..<at]), needing: try Self.requiredTraits(ofModule: "oauthflow"), place: place)
        return Array(words[at...])
    }

    /// Where the product of a `swift build|run` line is: the first word after the options that is no option's value.
    static func productIndex(_ words: [String]) -> Int? {
        var index = 2
        while index < words.count {
            if ["-c", "--traits"].contains(words[index]) {
                index += 2
            } else if words[index].hasPrefix("-") {
                index += 1
            } else {
                return index
            }
        }
        return nil
    }

    /// A `swift build|run` line's options: `-c release|debug`, `--static-swift-stdlib`, `--enable-all-traits` and
    /// `--traits A,B` naming traits Package.swift declares; together they must enable every trait in `needing`.
    static func checkSwiftOptions(_ options: [String], needing: Set<String>, place: String) throws {
        let declared = try Self.declaredTraits()
        var enabled: Set<String> = []
        var index = 0
        while index < options.count {
            let option = options[index]
            let value = index + 1 < options.count ? options[index + 1] : nil
            switch option {
            case "-c":
                #expect(["release", "debug"].contains(value ?? ""), "\(place): -c takes release or debug")
                index += 2
            case "--traits":
                let names = (value ?? "").split(separator: ",").map(String.init)
                #expect(!names.isEmpty, "\(place): --traits names no trait")
                for name in names {
                    #expect(declared.contains(name), "\(place): Package.swift declares no trait \(name) (it has \(declared.sorted()))")
                }
                enabled.formUnion(names)
                index += 2
            case "--enable-all-traits":
                enabled.formUnion(declared)
                index += 1
            case "--static-swift-stdlib":
                index += 1
            default:
                Issue.record("\(place): unchecked option \(option)")
                index += 1
            }
        }
        #expect(needing.isSubset(of: enabled), "\(place): builds nothing without the trait \(needing.subtracting(enabled).sorted()): add --traits")
    }

    /// The package traits Package.swift declares (`.trait(name: "NIO", ...)`).
    static func declaredTraits() throws -> Set<String> {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.trait\(\s*name:\s*"([A-Za-z0-9_]+)""#)
        return Set(pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).compactMap {
            Range($0.range(at: 1), in: manifest).map { String(manifest[$0]) }
        })
    }

    /// The traits a module builds only with: its `Sources/MODULE/PackageTrait.swift` stops the build with an `#error`
    /// under `#if !(A && B)`; none for a module without that file.
    static func requiredTraits(ofModule module: String) throws -> Set<String> {
        let file = repositoryRoot.appendingPathComponent("Sources/\(module)/PackageTrait.swift")
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        let text = try String(contentsOf: file, encoding: .utf8)
        let condition = try #require(text.split(separator: "\n").first { $0.hasPrefix("#if !(") }, "\(file.path) has no #if !(TRAIT)")
        let names = condition.dropFirst(6).prefix { $0 != ")" }.split(separator: "&&").map { $0.trimmingCharacters(in: .whitespaces) }
        return Set(names)
    }

    /// Docs/cli.md's git lines, run as written against a throwaway global config: git then runs
    /// `oauthflow credential git get`, which answers the stored session's token.
    @Test func gitConfigLinesMakeGitAskOAuthflow() async throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let blocks = try Self.blocks(in: "Docs/cli.md")
        // The clients file as the doc shows it.
        let clients = try #require(blocks.first { $0.language == "yaml" && $0.lines.contains { $0.contains("credential_helpers:") } })
        let config = home.url.appendingPathComponent("config/oauthflow")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try clients.lines.joined(separator: "\n").write(to: config.appendingPathComponent("clients.yaml"), atomically: true, encoding: .utf8)
        let mapping = try #require(clients.lines.first { $0.contains("- url: ") })
        let remoteText = try #require(Self.words(mapping, home: "").last)
        let remote = try #require(URL(string: remoteText))
        let providerLine = try #require(clients.lines.first { $0.contains("provider: ") })
        let provider = try #require(Self.words(providerLine, home: "").last)

        let token = "doc-example-\(UUID().uuidString)"
        let store = FileTokenStore(directory: home.url.appendingPathComponent("state/oauthflow"))
        try await store.save(StoredSession(
            key: SessionKey(providerID: provider), variables: [:], clientID: "0123abcd", redirectURI: URL(string: "http://127.0.0.1/callback")!,
            tokens: TokenSet(accessToken: Secret(token), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600), refreshToken: nil,
                             idToken: nil, scopes: [], issuedAt: Date()),
            updatedAt: Date()))

        let binDirectory = try builtProduct("oauthflow").deletingLastPathComponent().path
        let environment = [
            "HOME": home.url.path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
            "XDG_STATE_HOME": home.url.appendingPathComponent("state").path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
            "PATH": binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
        ]
        let lines = blocks.filter { $0.language == "console" }.flatMap { Self.commands(of: $0, home: home.url.path) }
            .filter { $0.words.starts(with: ["git", "config"]) }
        #expect(lines.count == 2)
        for line in lines {
            let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/git"), Array(line.words.dropFirst()), environment: environment)
            #expect(result.status == 0, "`\(line.text)`: \(result.stderr)")
        }
        let request = "protocol=\(remote.scheme ?? "")\nhost=\(remote.host ?? "")\npath=\(remote.path.dropFirst())/repo.git\n\n"
        let fill = try await runWithInput(URL(fileURLWithPath: "/usr/bin/git"), ["credential", "fill"], input: request, environment: environment)
        #expect(fill.status == 0, "git credential fill: \(fill.stderr)")
        #expect(fill.stdout.contains("password=\(token)\n"), "git did not get the token from oauthflow: \(fill.stderr)")
        #expect(fill.stdout.contains("username=oauth2\n"))
    }

    /// Docs/cli.md's session examples, run: a stored session set up as the example assumes (and, for the refused
    /// refresh, a token endpoint that answers 400 with an empty body), then every shown line must be printed.
    @Test func sessionExamplesPrintWhatTheDocsShow() async throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let blocks = try Self.blocks(in: "Docs/cli.md").filter { $0.language == "console" }
        let store = FileTokenStore(directory: home.url.appendingPathComponent("state/oauthflow"))
        let environment = ["XDG_STATE_HOME": home.url.appendingPathComponent("state").path,
                           "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path, "BROWSER": "/bin/false"]
        func session(_ provider: String, variables: [String: String], clientID: String, scopes: [String], valid: Bool) -> StoredSession {
            StoredSession(key: SessionKey(providerID: provider, account: "work"), variables: variables, clientID: clientID,
                          redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
                          tokens: TokenSet(accessToken: Secret("access"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(valid ? 3600 : -60),
                                           refreshToken: Secret("refresh"), idToken: nil, scopes: scopes, issuedAt: Date()),
                          updatedAt: Date(), clientAuthentication: ProviderDescriptor.ClientAuthMethod.none)
        }
        func check(_ command: String, extra: [String] = [], replacing: [(String, String)] = []) async throws {
            let block = try #require(blocks.first { $0.lines.contains("$ " + command) }, "Docs/cli.md no longer shows `\(command)`")
            let result = try await runProduct("oauthflow", Array(Self.words(command, home: "").dropFirst()) + extra, environment: environment)
            #expect(result.status == 1)
            // The words added here for the test's own providers are not in the docs' command: advice repeats them.
            let printed = extra.isEmpty ? result.stderr : result.stderr.replacingOccurrences(of: " " + extra.joined(separator: " "), with: "")
            for var line in Self.shownOutput(of: block, after: command) {
                for (from, to) in replacing { line = line.replacingOccurrences(of: from, with: to) }
                #expect(printed.contains(line), "`\(command)` no longer prints: \(line)\n\(result.stderr)")
            }
        }

        // A resource whose scope the session lacks.
        try await store.save(session("cloudentity", variables: ["region": "us", "tenant": "acme", "workspace": "demo"], clientID: "c0ffee",
                                     scopes: ["email", "openid", "profile", "offline_access"], valid: true))
        try await check("oauthflow call cloudentity Phone --account work")

        // A refresh refused with 400 and an empty body; the doc's port 8000 is the scripted server's here.
        let server = try HostileServer(.fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)))
        defer { server.stop() }
        try await store.save(session("django", variables: ["port": "\(server.port)"], clientID: "oauthflow-public",
                                     scopes: ["openid", "profile", "email", "read"], valid: false))
        try await check("oauthflow token refresh django --account work", extra: ["--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"],
                        replacing: [("port=8000", "port=\(server.port)")])
    }

    /// The other Docs' YAML and JSON: whole descriptors lint without errors, fragments are what a bundled
    /// descriptor says, and JSON parses into the shape its text describes.
    @Test func descriptorExamplesInDocsAreValid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let bundled = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("providers").path)
            .filter { $0.hasSuffix(".yaml") }
            .map { try String(contentsOf: repositoryRoot.appendingPathComponent("providers/\($0)"), encoding: .utf8) }
        func withoutComment(_ line: String) -> String {
            var text = line
            if let hash = text.range(of: " #") { text = String(text[..<hash.lowerBound]) }
            return text.trimmingCharacters(in: .whitespaces)
        }
        let bundledLines = Set(bundled.flatMap { $0.components(separatedBy: "\n") }.map(withoutComment))
        var descriptors = 0
        for block in try Self.allBlocks where block.file != "Docs/cli.md" {
            let place = "\(block.file):\(block.line)"
            switch block.language {
            case "yaml" where block.lines.first == "# ~/.config/oauthflow/clients.yaml":
                break   // a clients file, not a descriptor: ServicesDocExamples resolves each one
            case "yaml" where block.lines.contains { $0.hasPrefix("schema_version:") }:
                let id = try #require(block.lines.first { $0.hasPrefix("id: ") }).dropFirst(4).trimmingCharacters(in: .whitespaces)
                let file = try directory.write("\(id).yaml", block.lines.joined(separator: "\n"))
                let result = try await runProduct("oauthflow", ["lint", file.path])
                #expect(result.status == 0, "\(place): the example descriptor does not lint clean:\n\(result.stdout)")
                descriptors += 1
                // A descriptor whose service tokens the docs ask for declares the grant they take.
                let text = try String(contentsOf: repositoryRoot.appendingPathComponent(block.file), encoding: .utf8)
                if text.contains("serviceTokens(for: \"\(id)\")") {
                    let provider = try #require(DescriptorDocument.parse(Data(block.lines.joined(separator: "\n").utf8), path: "\(id).yaml").descriptor)
                        .resolve([:])
                    #expect(provider.policy.grantTypes.contains(.clientCredentials), "\(place): the docs ask for \(id)'s service tokens")
                }
            case "yaml":
                for line in block.lines.map(withoutComment) where !line.isEmpty && !line.hasPrefix("#") {
                    #expect(bundledLines.contains(line), "\(place): no bundled descriptor says `\(line)`")
                }
            case "json":
                let value = try JSONSerialization.jsonObject(with: Data(block.lines.joined(separator: "\n").utf8))
                let entries = try #require(value as? [[String: String]], "\(place): not a list of resources")
                for entry in entries {
                    #expect(Set(entry.keys) == ["scope", "title", "url"], "\(place)")
                }
            default:
                break
            }
        }
        #expect(descriptors >= 1)
    }

    /// Docs/cli.md's YAML: the clients file resolves as shown, and the kubeconfig's `args` parse as a command.
    @Test func cliYAMLExamplesWork() throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let yaml = try Self.blocks(in: "Docs/cli.md").filter { $0.language == "yaml" }
        #expect(yaml.count == 4, "a new YAML example in Docs/cli.md: check it here")
        let clients = try #require(yaml.first { $0.lines.contains("google:") && !$0.lines.contains { $0.contains("credential_helpers") } })
        try home.write("oauthflow/clients.yaml", clients.lines.joined(separator: "\n"))
        let environment = ["XDG_CONFIG_HOME": home.url.path, "GOOGLE_CLIENT_SECRET": "from-the-environment"]
        let resolver = ClientSettingsResolver(environment: environment)
        let google = try resolver.settings(for: "google")
        #expect(google.clientID == "1234-abc.apps.googleusercontent.com")
        #expect(google.secret?.value == "from-the-environment")
        #expect(google.authMethod == .clientSecretPost)
        let auth0 = try resolver.settings(for: "auth0")
        #expect(auth0.clientID == "AbCdEf" && auth0.variables["domain"] == "example.us.auth0.com" && auth0.secret == nil)

        // The two GitLab instances: two mappings, each its own host and account.
        let instances = try #require(yaml.first { $0.lines.first == "credential_helpers:" })
        let second = try TemporaryDirectory()
        defer { second.cleanUp() }
        try second.write("oauthflow/clients.yaml", instances.lines.joined(separator: "\n"))
        let mappings = try ClientSettingsResolver(environment: ["XDG_CONFIG_HOME": second.url.path]).gitCredentialMappings()
        #expect(mappings.map(\.account) == ["gitlab-com", "work"])
        #expect(mappings.map { $0.variables?["host"] } == ["gitlab.com", "git.example.com"])

        let kubeconfig = try #require(yaml.first { $0.lines.contains { $0.contains("client.authentication.k8s.io/v1") } })
        let argsLine = try #require(kubeconfig.lines.first { $0.contains("args: [") })
        let inner = argsLine[argsLine.index(after: try #require(argsLine.firstIndex(of: "[")))..<(try #require(argsLine.lastIndex(of: "]")))]
        let arguments = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(kubeconfig.lines.contains { $0.contains("command: oauthflow") })
        let parsed = try OAuthFlowCommand.parseAsRoot(arguments)
        let kubectl = try #require(parsed as? OAuthFlowCommand.Credential.Kubectl)
        #expect(kubectl.name == "keycloak" && kubectl.variables == ["host=sso.example.com", "realm=ops"])
        // The descriptor resolves with exactly those variables.
        _ = try ProviderRegistry.load().descriptor(named: "keycloak").resolve(["host": "sso.example.com", "realm": "ops"])
    }

    /// Each line of each Swift block is in a test source that compiles it (blank lines aside).
    @Test func swiftExamplesAreCompiledByTests() throws {
        let sources = try ["Tests/OAuthFlowDocumentationTests/DocExampleTests.swift", "Tests/OAuthFlowDocumentationTests/ReadmeExampleTests.swift",
                           "Tests/OAuthFlowDocumentationTests/DocWebExample.swift",
                           "Tests/OAuthFlowDocumentationTests/ServicesDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/PushedAndDPoPDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/APIProtectionDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/LogoutDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/SecurityEventsDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/AppleDocExamples.swift",
                           "Tests/OAuthFlowAppleTests/AppleSignInDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/LifecycleDocExamples.swift",
                           "Tests/OAuthFlowTestingTests/TestingDocExamples.swift",
                           "Tests/OAuthFlowDocumentationTests/FrontDoorDocExamples.swift",
                           "Tests/OAuthFlowVaporTests/VaporDocExamples.swift",
                           "Tests/OAuthFlowMCPTests/MCPAuthDocExamples.swift",
                           "Tests/OAuthFlowMCPTests/MCPDocExamples.swift",
                           "Tests/OAuthFlowMCPTests/MCPVaporDocExamples.swift",
                           "Tests/OAuthFlowMCPTests/MCPDocExamplesTests.swift",
                           "Tests/OAuthFlowTests/Environment/OperationsDocExamples.swift",
                           "Tests/OAuthFlowAppleTests/AppleSessionsDocExamples.swift",
                           "Tests/OAuthFlowWebTests/API/OperationsServingDocExamples.swift"].map {
            try String(contentsOf: repositoryRoot.appendingPathComponent($0), encoding: .utf8)
        }
        let compiled = Set(sources.flatMap { $0.components(separatedBy: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) })
        for block in try Self.allBlocks where block.language == "swift" {
            if block.lines.contains(where: { $0.hasPrefix(".package(") || $0.hasPrefix(".product(") }) { continue }   // the manifest snippet
            let lines = block.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for (index, line) in lines.enumerated() {
                // A test target has its own entry point: the type after `@main` is compiled without it, and a test calls its main().
                if line == "@main", index + 1 < lines.count, lines[index + 1].hasPrefix("struct "), lines[index + 1].hasSuffix(" {") {
                    let type = lines[index + 1].dropFirst(7).dropLast(2)
                    #expect(sources.contains { $0.contains("await \(type).main()") }, "\(block.file):\(block.line): no test runs \(type).main()")
                    continue
                }
                #expect(compiled.contains(line), "\(block.file):\(block.line): no test compiles `\(line)`")
            }
        }
    }

    /// The README's manifest snippet names products that exist, and every product its examples import.
    @Test func dependencySnippetListsWhatTheExamplesImport() throws {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let blocks = try Self.blocks(in: "README.md").filter { $0.language == "swift" }
        let snippet = try #require(blocks.first { $0.lines.contains { $0.hasPrefix(".package(") } })
        let products = snippet.lines.compactMap { line -> String? in
            guard let range = line.range(of: #"\.product\(name: "([A-Za-z]+)""#, options: .regularExpression) else { return nil }
            return String(line[range].dropFirst(16).dropLast())
        }
        for product in products {
            #expect(manifest.contains(".library(name: \"\(product)\""), "README names a product \(product) that Package.swift lacks")
        }
        // The dependency line enables the traits its products need (each module's PackageTrait.swift), and only declared ones.
        let dependency = try #require(snippet.lines.first { $0.hasPrefix(".package(") })
        let list = try #require(dependency.range(of: #"traits: \[[^\]]*\]"#, options: .regularExpression), "README's .package line names no traits")
        let enabled = Set(dependency[list].dropFirst(9).split(whereSeparator: { "[]\", ".contains($0) }).map(String.init))
        #expect(enabled.isSubset(of: try Self.declaredTraits()), "README's .package line enables \(enabled.sorted())")
        for product in products {
            let needed = try Self.requiredTraits(ofModule: product)
            #expect(needed.isSubset(of: enabled), "README lists \(product) beside a .package line without the trait \(needed.subtracting(enabled).sorted())")
        }
        let imported = Set(blocks.flatMap(\.lines).filter { $0.hasPrefix("import OAuthFlow") }.map { String($0.dropFirst(7)) })
        for module in imported {
            #expect(products.contains(module), "README's examples import \(module) but its dependency snippet does not list it")
        }
    }

    // MARK: - The Swift blocks, compiled (the ones that can run offline also run)

    /// Docs/host-code.md, "The types underneath".
    func hostCodeRegistry() async throws {
        let registry = try ProviderRegistry.load(directories: [URL(fileURLWithPath: "/etc/myapp/providers")])
        let auth0 = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])

        let authorize = auth0.endpoints.authorization   // https://example.us.auth0.com/authorize
        let encoding = auth0.policy.tokenRequest.encoding   // .json: typed, every default applied
        let opened = auth0.resources.resources(granted: ["openid", "email"])   // the resources those scopes open
        _ = (authorize, encoding, opened)
    }

    /// Calls Docs/host-code.md shows inside its prose, compiled here; `inlineCallsAreShown` checks the guide still shows
    /// them (the front door's are in FrontDoorDocExamples).
    static let inlineCalls = [
        #"try ProviderRegistry.descriptor(named: "auth0", directories: directories).resolve(variables)"#,
    ]

    func hostCodeInlineCalls(directories: [URL], variables: [String: String], manager: TokenManager) async throws {
        _ = try ProviderRegistry.descriptor(named: "auth0", directories: directories).resolve(variables)
        _ = try await manager.refresh()
        _ = try await manager.refresh(replacing: manager.validAccessToken())
    }

    @Test func inlineCallsAreShown() throws {
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/host-code.md"), encoding: .utf8)
        let source = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowDocumentationTests/DocExampleTests.swift"), encoding: .utf8)
        for call in Self.inlineCalls {
            #expect(guide.contains("`\(call)`") || guide.contains("(`\(call)`)"), "Docs/host-code.md no longer shows `\(call)`")
            #expect(source.components(separatedBy: call).count >= 3, "`\(call)` is not compiled here")
        }
    }

    /// Docs/host-code.md, step by step.
    func hostCodeStepByStep(auth0: Provider, redirectURL: URL) async throws {
        let client = OAuthClient(provider: auth0, configuration: ClientConfiguration(
            clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
        let pending = try await client.startAuthorization()        // open pending.url in a browser
        let tokens = try await client.finishSignIn(.callback(redirectURL), pending: pending).tokens
        let claims = try await client.userInfo(tokens)
        _ = claims
    }

    /// Docs/flow.md, the opening example.
    func flowExample(redirectURL: URL) async throws {
        let registry = try ProviderRegistry.load()
        let provider = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: "YOUR_CLIENT_ID",
            redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))

        let pending = try await client.startAuthorization()   // Codable: persist it to resume after a restart
        // Open pending.url in the browser and receive the redirect (`LoopbackReceiver` in OAuthFlowLoopback does this for the CLI).
        let tokens = try await client.finishSignIn(.callback(redirectURL), pending: pending).tokens
        let claims = try await client.userInfo(tokens)
        let fresh = try await client.refresh(tokens)
        try await client.revoke(fresh.accessToken, kind: .accessToken)
        _ = claims
    }

    /// Docs/flow.md, one sign-in run driven by its two halves.
    func signInRunExample(oauth: OAuth, redirectURL: URL) async throws {
        let run = try oauth.signInRun(to: "google", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
        let started = try await run.start()   // open started.url; keep it (Codable) until the redirect comes back
        let outcome = try await run.client.finishSignIn(.callback(redirectURL), pending: started)
        let result = try await run.store(outcome, in: oauth.store)
        _ = result
    }

    /// Docs/flow.md, a sign-in whose halves run in two processes.
    func manualSignInExample(oauth: OAuth, redirectURL: URL) async throws {
        let started = try await oauth.startManualSignIn(to: "google")   // open started.url on any device
        let result = try await oauth.finishManualSignIn(to: "google", callback: redirectURL)   // in this process or another
        _ = (started, result)
    }

    /// Docs/oidc.md, discovery by hand.
    func oidcDiscoveryExample(provider: Provider, environment: OAuthEnvironment) async throws {
        let complete = try await provider.discovered(environment: environment)   // one fetch; static endpoints win, discovered ones fill the gaps
        _ = complete
    }

    struct ExampleUser { let id: String }

    /// Docs/tokens.md, the PostgreSQL store.
    func postgresExample(
        secrets: [String: String], dbPassword: String, clients: [String: ClientSettings], client: OAuthClient, user: ExampleUser
    ) async throws {
        let keyring = try SessionKeyring(
            current: .init(id: "2026-11", base64: secrets["OAUTHFLOW_SESSION_KEY_2026_11"]!),
            previous: [.init(id: "2026-05", base64: secrets["OAUTHFLOW_SESSION_KEY_2026_05"]!)])
        let store = try PostgresTokenStore(
            configuration: .init(host: "db.internal", port: 5432, username: "app", password: dbPassword,
                                 database: "app", tls: .require(.makeClientConfiguration())),
            keyring: keyring)
        Task { await store.run() }          // the connection pool; or run it in your ServiceGroup
        try await store.migrate()           // idempotent; safe from every instance at start

        // Per user: the account is the host's user id.
        let oauth = OAuth(OAuth.Configuration(clients: clients, store: store))
        let token = try await oauth.accessToken(for: "google", account: user.id)
        let manager = TokenManager(client: client, store: store, key: SessionKey(providerID: "google", account: user.id))
        let managed = try await manager.validAccessToken()
        _ = (token, managed)
    }

    @Test func flowExampleStartsOffline() async throws {
        let registry = try ProviderRegistry.load()
        let provider = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: "YOUR_CLIENT_ID",
            redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
        let pending = try await client.startAuthorization()   // Codable: persist it to resume after a restart
        #expect(pending.url.host == "example.us.auth0.com")
    }
}
