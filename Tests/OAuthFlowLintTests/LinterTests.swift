import Foundation
import OAuthFlow
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlowLint

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct LinterTests {
    @Test func bundledProvidersAreCleanEvenUnderStrict() throws {
        let diagnostics = try Linter().lint(paths: [repositoryRoot.appendingPathComponent("providers")])
        #expect(diagnostics.isEmpty, "\(diagnostics)")
    }

    @Test func everyBrokenFixtureGetsAPositionedDiagnostic() throws {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures/broken", withExtension: nil))
        let files = try ProviderRegistry.descriptorFiles(in: folder)
        #expect(files.count >= 8)
        let diagnostics = try Linter().lint(paths: [folder])
        for file in files {
            let mine = diagnostics.filter { $0.location.path == file.relativePath && $0.severity == .error }
            #expect(!mine.isEmpty, "no error for \(file.lastPathComponent)")
        }
    }

    /// Secret names and credential headers are recognised in any case, by bytes for ASCII and
    /// by `lowercased()` beyond it (a Kelvin sign lowers to `k`).
    /// A grant written by its short name is pointed at its full URI, a misspelt one at the nearest
    /// grant, and each message stands on the item's own line.
    @Test func unknownGrantsNameTheGrantMeant() {
        let text = Examples.valid + "grant_types:\n  - authorization_code\n  - device_code\n  - refresh_tokn\n  - magic\n"
        let diagnostics = Linter().lint(text: text, path: "example.yaml").filter { $0.ruleID == "authorization_code_only" }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func line(of item: String) -> Int { 1 + (lines.firstIndex { $0 == "  - \(item)" } ?? -2) }
        #expect(diagnostics.count == 3, "\(diagnostics)")
        let byLine = Dictionary(diagnostics.map { ($0.location.line, $0.message) }, uniquingKeysWith: { $1 })
        #expect(byLine[line(of: "device_code")]?.contains("`urn:ietf:params:oauth:grant-type:device_code`") == true, "\(byLine)")
        #expect(byLine[line(of: "refresh_tokn")]?.contains("did you mean `refresh_token`?") == true, "\(byLine)")
        #expect(byLine[line(of: "magic")]?.hasSuffix("does not run the `magic` grant") == true, "\(byLine)")
    }

    /// `client_secret` alone is a prefix of three methods: the message names the three, not the nearest by edits.
    @Test func aMethodWrittenAsAPrefixNamesEveryMethodItBegins() {
        let text = Examples.valid + "client_auth:\n  method: client_secret\n"
        let messages = Linter().lint(text: text, path: "example.yaml").map(\.message)
        #expect(
            messages.contains { $0.hasSuffix("did you mean `client_secret_basic`, `client_secret_post` or `client_secret_jwt`?") },
            "\(messages)")
    }

    /// A variable's sample values are judged in one sentence about the value, and its example is
    /// offered only when it fits itself.
    @Test func variableSamplesAreJudgedOnce() {
        let variables =
            "variables:\n  region:\n    description: Region\n    pattern: '^[a-z]+$'\n    example: Acme\n    default: x1\n"
            + "  zone:\n    description: Zone\n    pattern: '^[a-z]+$'\n    example: west\n    default: East\n"
        let text = Examples.header + "issuer: https://{region}.{zone}.example.com\n" + variables
            + "endpoints:\n  authorization: https://{region}.{zone}.example.com/a\n  token: https://{region}.{zone}.example.com/t\n"
        let messages = Linter().lint(text: text, path: "example.yaml").filter { $0.ruleID == "variable_definition" }.map(\.message)
        #expect(
            Set(messages) == [
                "`example` of variable `region` does not match the pattern `^[a-z]+$`: `Acme`",
                "`default` of variable `region` does not match the pattern `^[a-z]+$`: `x1`",
                "`default` of variable `zone` does not match the pattern `^[a-z]+$`: `East` (example: `west`)",
            ], "\(messages)")
    }

    /// A scope with a space is named at its own item, a repeated one is a warning at the repeat.
    @Test func scopesAreCheckedOneByOne() {
        let text = Examples.valid + "scopes:\n  default:\n    - profile\n    - \"read write\"\n    - profile\n    - \"a\\\\b\"\n"
        let diagnostics = Linter().lint(text: text, path: "example.yaml").filter { $0.ruleID == "scope_syntax" }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func line(of item: String) -> Int { 1 + (lines.lastIndex { $0 == "    - \(item)" } ?? -2) }
        let found = diagnostics.map { "\($0.location.line) \($0.severity.rawValue) \($0.message)" }
        #expect(
            found == [
                "\(line(of: "\"read write\"")) error scope `read write` holds a space; list each scope as its own item",
                "\(line(of: "profile")) warning scope `profile` is listed twice",
                "\(line(of: "\"a\\\\b\"")) error scope `a\\b` holds `\\`, which no scope may (RFC 6749 §3.3)",
            ], "\(found)")
    }

    @Test func secretNamesAreMatchedInAnyCase() {
        for name in ["client_secret", "Client_Secret", "API_KEY", "apikey", "my_app_secret", "PASSWORD", "api_\u{212A}ey", "Id_Token"] {
            #expect(LiteralSecretRule.looksSecret(name), "\(name)")
        }
        for name in ["secretary", "token", "key_id", "_secre", "client_secrets", "passwords", ""] {
            #expect(!LiteralSecretRule.looksSecret(name), "\(name)")
        }
        // Against the rule's own words (a secret name or a name ending in `_secret`, lowered), for each secret name
        // in several cases, a letter short or over, behind a prefix, and for keys of every length up to 70 ending in
        // each letter a secret name ends with: the filters by last letter and by length rule out none of them.
        func named(_ name: String) -> Bool {
            let lowered = name.lowercased()
            return LiteralSecretRule.secretNames.contains(lowered) || lowered.hasSuffix("_secret")
        }
        var keys = LiteralSecretRule.secretNames.flatMap { name in
            [name, name.uppercased(), name.capitalized, String(name.dropFirst()), String(name.dropLast()), name + "s", "x" + name, "my_" + name]
        }
        for last in ["t", "d", "y", "n", "T", "N", "e", "_secret", "_SECRET", "\u{212A}"] {
            for length in 0...70 { keys.append(String(repeating: "a", count: length) + last) }
        }
        for key in keys { #expect(LiteralSecretRule.looksSecret(key) == named(key), "\(key)") }
        #expect(LiteralSecretRule.isCredentialHeader("Proxy-Authorization"))
        #expect(LiteralSecretRule.isCredentialHeader("COOKIE"))
        #expect(!LiteralSecretRule.isCredentialHeader("Accept"))
        #expect(!LiteralSecretRule.isCredentialHeader("Cookies"))
    }

    /// What the resolver refuses, lint reports at the value refused with the resolver's own message: the
    /// condition is written once, in the resolver, and every refusal is reported, not only the first.
    @Test func resolverRefusalsAreReportedWhereTheyAreWritten() throws {
        let text = Examples.valid + "authorization:\n  response_type: token\nsecurity:\n  pkce_method: plain\n"
        let descriptor = try #require(DescriptorDocument.parse(Data(text.utf8), path: "example.yaml").descriptor)
        let first = try #require(throws: ProviderError.self) { try descriptor.resolve() }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func line(of key: String) -> Int { 1 + (lines.firstIndex { $0.hasPrefix("  \(key):") } ?? -2) }
        let diagnostics = Linter().lint(text: text, path: "example.yaml").filter { ["authorization_code_only", "pkce_s256"].contains($0.ruleID) }
        #expect(diagnostics.map(\.message) == descriptor.refusals.map(\.message), "\(diagnostics)")
        #expect(diagnostics.first?.message == first.message)
        #expect(diagnostics.map(\.location.line) == [line(of: "response_type"), line(of: "pkce_method")], "\(diagnostics)")
        #expect(diagnostics.map(\.ruleID) == ["authorization_code_only", "pkce_s256"])
    }

    @Test func insecureFixtureTripsTheSecurityRules() throws {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures/broken", withExtension: nil))
        let diagnostics = try Linter().lint(paths: [folder.appendingPathComponent("insecure.yaml")])
        let ids = Set(diagnostics.map(\.ruleID))
        for id in ["https_endpoints", "variable_in_query", "undeclared_variable", "authorization_code_only",
                   "pkce_for_public_clients", "pkce_s256", "state_without_pkce", "oidc_openid_scope", "oidc_nonce",
                   "reserved_parameter", "literal_secret", "private_use_scheme", "localhost_loopback"] {
            #expect(ids.contains(id), "missing \(id)")
        }
        let localhost = try #require(diagnostics.first { $0.ruleID == "localhost_loopback" })
        #expect(localhost.severity == .warning)
        #expect(localhost.location.line == 25)
        #expect(localhost.location.column == 11)
    }

    /// The rule's pass over the node tables finds what its walk reports, and only then walks: an
    /// `authorization` section is no header, a credential header under any `headers` is one.
    @Test func literalSecretsPrePassAgreesWithTheWalk() {
        var cases: [(String, Int)] = [
            (Examples.valid + "authorization:\n  extra_params:\n    prompt: consent\n", 0),
            (Examples.valid + "token_request:\n  headers:\n    X-Trace: one\n    Cookie: session=abc\n", 1),
            (Examples.valid + "authorization:\n  extra_params:\n    note: \"-----BEGIN RSA PRIVATE KEY-----\"\n", 1),
            (Examples.valid + "authorization:\n  extra_params:\n    note: \"-----BEGIN CERTIFICATE-----\"\n", 0),
            // The shortest text that holds both marks, and one a byte short of a mark.
            (Examples.valid + "authorization:\n  extra_params:\n    note: \"-----BEGINKEY\"\n", 1),
            (Examples.valid + "authorization:\n  extra_params:\n    note: \"----BEGINKEY\"\n", 0),
            (Examples.valid + "token_request:\n  headers:\n    Authorization: Bearer abc\n", 1),
            (Examples.valid + "token_request:\n  headers:\n    Accept: application/json\n", 0),
        ]
        // Each secret name as a key, in three cases, and keys that end as one does without being one: the pass passes
        // over a key only by a last byte no secret name (nor `headers`) ends with.
        for name in LiteralSecretRule.secretNames + ["my_app_secret", "api_\u{212A}ey"] {
            for key in [name, name.uppercased(), name.capitalized] {
                cases.append((Examples.valid + "authorization:\n  extra_params:\n    \(key): abc\n", 1))
            }
        }
        for key in ["client_id", "token", "description", "registration", "policy", "x_secrets", "headers_x"] {
            cases.append((Examples.valid + "authorization:\n  extra_params:\n    \(key): abc\n", 0))
        }
        for (text, expected) in cases {
            let document = DescriptorDocument.parse(Data(text.utf8), path: "example.yaml")
            let found = LiteralSecretRule().validate(LintFile(document: document))
            #expect(found.count == expected, "\(text): \(found)")
        }
    }

    /// A directory named relative to a folder other than the working directory is read from that folder.
    @Test func aDirectoryRelativeToAnotherBaseIsReadFromIt() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("lint-base-\(UUID().uuidString)", isDirectory: true)
        let folder = base.appendingPathComponent("descriptors", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try Data((Examples.valid + "unknown_key_here: 1\n").utf8).write(to: folder.appendingPathComponent("example.yaml"))
        let diagnostics = try Linter().lint(paths: [URL(fileURLWithPath: "descriptors", isDirectory: true, relativeTo: base)])
        #expect(diagnostics.map(\.ruleID) == ["unknown_key"], "\(diagnostics)")
        #expect(diagnostics.first?.location.path == "descriptors/example.yaml")
    }

    /// A path that is not there is a finding at that path, and the paths beside it are still linted.
    @Test func aMissingPathIsAFindingAtThatPath() throws {
        let diagnostics = try Linter().lint(paths: [URL(fileURLWithPath: "/no/such/dir"), repositoryRoot.appendingPathComponent("providers/google.yaml")])
        #expect(diagnostics.map(\.location.path) == ["/no/such/dir"], "\(diagnostics)")
        #expect(diagnostics.first?.message == "cannot read the file: no such file or directory")
        #expect(diagnostics.first?.severity == .error)
    }

    @Test func thousandGeneratedDescriptorsLintWithoutFindings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<200 {
            let id = "generated-\(index)"
            let text = Examples.valid.replacingOccurrences(of: "id: example", with: "id: \(id)")
            try Data(text.utf8).write(to: directory.appendingPathComponent("\(id).yaml"))
        }
        #expect(try Linter().lint(paths: [directory]).isEmpty)
    }
}

@Suite struct ReporterTests {
    let diagnostics = [
        Diagnostic(location: SourceLocation(path: "providers/a.yaml", line: 3, column: 7), severity: .error,
                   ruleID: "unknown_key", message: "unknown key `scope`; did you mean `scopes`?"),
        Diagnostic(location: SourceLocation(path: "providers/b,c.yaml", line: 1, column: 1), severity: .warning,
                   ruleID: "unused_variable", message: "50% unused\nsecond line"),
    ]

    @Test func textIsCompilerStyle() {
        #expect(TextReporter().report(diagnostics).split(separator: "\n").first
            == "providers/a.yaml:3:7: error: unknown key `scope`; did you mean `scopes`? [unknown_key]")
    }

    @Test func jsonRoundTrips() throws {
        let data = Data(JSONReporter().report(diagnostics).utf8)
        let decoded = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(decoded.count == 2)
        #expect(decoded[0]["rule_id"] as? String == "unknown_key")
        #expect(decoded[0]["line"] as? Int == 3)
        #expect(decoded[1]["severity"] as? String == "warning")
    }

    /// The JSON report written in parts, a batch at a time, is the array one encoder writes at once.
    @Test func jsonPartsJoinToTheWholeArray() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        struct Entry: Encodable {
            let path: String, line: Int, column: Int, severity: String, rule_id: String, message: String
        }
        func whole(_ diagnostics: [Diagnostic]) throws -> String {
            let entries = diagnostics.map {
                Entry(path: $0.location.path, line: $0.location.line, column: $0.location.column,
                      severity: $0.severity.rawValue, rule_id: $0.ruleID, message: $0.message)
            }
            return String(decoding: try encoder.encode(entries), as: UTF8.self) + "\n"
        }
        let reporter = JSONReporter()
        for cut in 0...diagnostics.count {
            let first = Array(diagnostics[..<cut]), second = Array(diagnostics[cut...])
            let joined = reporter.part(first, following: false) + reporter.part(second, following: !first.isEmpty)
                + reporter.end(afterAny: !diagnostics.isEmpty)
            #expect(joined == (try whole(diagnostics)), "cut at \(cut)")
        }
        #expect(reporter.report([]) == (try whole([])))
        #expect(reporter.part([], following: false) + reporter.end(afterAny: false) == (try whole([])))
    }

    @Test func githubAnnotationsAreEscaped() {
        let lines = GitHubReporter().report(diagnostics).split(separator: "\n")
        #expect(lines[0] == "::error file=providers/a.yaml,line=3,col=7,title=unknown_key::unknown key `scope`; did you mean `scopes`?")
        #expect(lines[1] == "::warning file=providers/b%2Cc.yaml,line=1,col=1,title=unused_variable::50%25 unused%0Asecond line")
    }
}

@Suite struct GeneratedFilesTests {
    private func read(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func schemaJSONIsCurrent() throws {
        #expect(try read("providers/schema.json") == GeneratedDocs.schema, "run `swift run oauthflow generate-docs`")
    }

    @Test func readmeCountsTheRules() throws {
        #expect(try read("README.md").contains("checks descriptors with \(Linter.allRules.count) rules"), "README.md's rule count is not \(Linter.allRules.count)")
    }

    @Test func providerCatalogIsCurrent() throws {
        let page = try read("Docs/providers.md")
        #expect(page.hasPrefix(GeneratedDocs.providerCatalog), "run `swift run oauthflow generate-docs`")
        #expect(GeneratedDocs.replacingCatalog(in: page) == page)
        // The hand-written part is kept by the generator, and a page without the marker gets none.
        let stale = GeneratedDocs.providerCatalog.replacingOccurrences(of: "| Google |", with: "| Gooogle |")
        #expect(GeneratedDocs.replacingCatalog(in: stale + "\n## Kept\n") == GeneratedDocs.providerCatalog + "\n## Kept\n")
        #expect(GeneratedDocs.replacingCatalog(in: "# Old page\n") == GeneratedDocs.providerCatalog)
        #expect(GeneratedDocs.providerCatalog.contains("| Google | `google` | oidc | supported | access_type=offline | yes | yes |"))
    }

    @Test func lintRuleCatalogIsCurrent() throws {
        #expect(try read("Docs/lint-rules.md") == GeneratedDocs.lintRules, "run `swift run oauthflow generate-docs`")
    }

    @Test func descriptorFieldReferenceIsCurrent() throws {
        let text = try read("Docs/descriptor-format.md")
        #expect(GeneratedDocs.replacingReference(in: text) == text, "run `swift run oauthflow generate-docs`")
    }

    @Test func schemaIsValidJSONAndClosed() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(GeneratedDocs.schema.utf8)) as? [String: Any])
        #expect(object["additionalProperties"] as? Bool == false)
        #expect((object["required"] as? [String]) == ["schema_version", "id", "display_name", "protocol"])
    }

    /// Every `default` the schema gives an editor is a value of its property's own `type` (a newcomer found 27 of 96
    /// written as strings: `interval: "5"`, which lint refuses); a default stated in words stays in the reference.
    @Test func everySchemaDefaultHasItsPropertysType() throws {
        let schema = try JSONDecoder().decode(JSONValue.self, from: Data(GeneratedDocs.schema.utf8))
        var wrong: [String] = [], checked = 0
        func visit(_ property: [String: JSONValue], _ path: String) {
            if let value = property["default"], case let .string(type)? = property["type"] {
                checked += 1
                let fits: Bool =
                    switch (type, value) {
                    case ("integer", .number(let number)): number == number.rounded()
                    case ("boolean", .bool), ("array", .array), ("object", .object), ("string", .string): true
                    default: false
                    }
                if !fits { wrong.append("\(path): \(value) is not \(type)") }
                if case let .string(pattern)? = property["pattern"], case let .string(text) = value,
                    text.range(of: pattern, options: .regularExpression) == nil
                {
                    wrong.append("\(path): \(text) does not match \(pattern)")
                }
            }
            if case let .object(children)? = property["properties"] {
                for (name, child) in children { if case let .object(child) = child { visit(child, path + "." + name) } }
            }
            if case let .object(items)? = property["items"] { visit(items, path + "[]") }
            if case let .object(values)? = property["additionalProperties"] { visit(values, path + "{}") }
        }
        guard case let .object(root) = schema else { Issue.record("the schema is not an object"); return }
        visit(root, "")
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(checked > 60)
    }

    @Test func everyBundledDescriptorPointsEditorsAtTheSchema() throws {
        for file in try ProviderRegistry.descriptorFiles(in: repositoryRoot.appendingPathComponent("providers")) {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.hasPrefix("# yaml-language-server: $schema=schema.json\n"), "\(file.lastPathComponent)")
        }
    }
}

@Suite struct StreamingLintTests {
    /// A file named by several arguments is linted once, as first named, and is not its own duplicate.
    @Test func aFileNamedTwiceIsReadOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.yaml")
        try Data(descriptorText(id: "a").utf8).write(to: file)
        let again = URL(fileURLWithPath: directory.path + "/./a.yaml")
        let (diagnostics, count) = try Linter().lintStreaming(paths: [file, again, directory])
        #expect(count == 1)
        #expect(!diagnostics.contains { $0.ruleID == "duplicate_id" }, "\(diagnostics)")
    }

    /// A name that is not UTF-8 cannot be spelled by the listing, and the diagnostic says so.
    @Test func aNameThatIsNotUTF8IsNamedAsSuch() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = Array(directory.path.utf8) + Array("/bad".utf8) + [0xFF] + Array(".yaml".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { open($0, O_CREAT | O_WRONLY, 0o600) }
        }
        try #require(descriptor >= 0)
        close(descriptor)
        let diagnostics = try Linter().lint(paths: [directory])
        #expect(diagnostics.contains { $0.message == "cannot read the file: its name is not valid UTF-8; rename it" }, "\(diagnostics)")
    }

    /// A group of files holding more than a thread reads at once (1 MiB) is read and checked in parts: each file's
    /// findings are still its own, where it is, as when it is linted alone. The large files come after the first
    /// group, whatever the number of cores, so that a part's findings stored at the group's first places show.
    @Test func aGroupOfLargeFilesIsCheckedInPartsWithEachFilesFindingsItsOwn() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanUp() }
        // About 400 KiB each, five of them: more than one part's budget.
        let padding = "# " + String(repeating: "x", count: 400_000) + "\n"
        let names = (0..<40).map { String(format: "f%02d", $0) }
        for (position, name) in names.enumerated() {
            let large = (30..<35).contains(position)
            // Two of the large files and one small one are named against their ids: findings of their own.
            let id = [31, 34, 5].contains(position) ? "not-\(name)" : name
            try folder.write("\(name).yaml", (large ? padding : "") + TestDescriptor(id: id).yaml)
        }
        let together = try Linter().lint(paths: [folder.url])
        var alone: [Diagnostic] = []
        for name in names { alone += try Linter().lint(paths: [folder.url.appendingPathComponent("\(name).yaml")]) }
        #expect(together.count == alone.count)
        #expect(together.map(\.location.path) == alone.map(\.location.path))
        #expect(together.map(\.message) == alone.map(\.message))
        for name in ["f31", "f34", "f05"] {
            #expect(together.contains { $0.location.path.hasSuffix("\(name).yaml") && $0.message.contains("not-\(name)") }, "\(name)")
        }
    }

    /// A batch is cut into groups of 32 files, or fewer (down to 8) when there are too few for two groups a core.
    @Test func aBatchIsCutIntoGroupsOfUpTo32FilesAndTwoAtLeastForEachCore() {
        #expect(Linter.groupSize(of: 256, cores: 2) == 32)
        #expect(Linter.groupSize(of: 256, cores: 8) == 16)
        #expect(Linter.groupSize(of: 256, cores: 64) == 8)
        #expect(Linter.groupSize(of: 40, cores: 2) == 10)
        #expect(Linter.groupSize(of: 3, cores: 2) == 8)
        #expect(Linter.groupSize(of: 256, cores: 0) == 32)
    }

    /// A folder named on the command line is opened once and its files read by name in it (`openat`), where the kernel
    /// walked the folder's whole path again for each file; a file named alone is read by its path. Moved away once
    /// opened, the folder's files are still read from it: what is read is the folder that was listed.
    @Test func aFolderIsOpenedOnceAndItsFilesAreReadByNameInIt() throws {
        let folder = try TemporaryDirectory()
        let moved = folder.url.deletingLastPathComponent().appendingPathComponent("moved-\(UUID().uuidString)")
        defer {
            folder.cleanUp()
            try? FileManager.default.removeItem(at: moved)
        }
        try folder.write("a.yaml", TestDescriptor(id: "a").yaml)
        try folder.write("b.yml", TestDescriptor(id: "b").yaml)
        let alone = try folder.write("alone/c.yaml", TestDescriptor(id: "c").yaml)
        let files = try Linter.reportPaths(in: [folder.url, alone]).sorted()
        let folders = files.openFolders()
        defer { for descriptor in folders where descriptor >= 0 { close(descriptor) } }
        #expect(folders.count == 2)
        #expect(folders[0] >= 0)
        #expect(folders[1] == -1)
        var opened: [String: (path: String, folder: Int32)] = [:]
        for index in files.files.indices { opened[URL(fileURLWithPath: files.files[index].path).lastPathComponent] = files.opening(index, in: folders) }
        #expect(opened["a.yaml"]?.path == "a.yaml")
        #expect(opened["a.yaml"]?.folder == folders[0])
        #expect(opened["b.yml"]?.path == "b.yml")
        #expect(opened["c.yaml"]?.path == alone.path)
        #expect(opened["c.yaml"]?.folder == AT_FDCWD)
        try FileManager.default.moveItem(at: folder.url, to: moved)
        for name in ["a.yaml", "b.yml"] {
            let (path, descriptor) = try #require(opened[name])
            let document = DescriptorDocument.load([(path, descriptor, name)][...]) { $0 }[0]
            #expect(document.problems.isEmpty, "\(document.problems)")
            #expect(document.descriptor?.id == String(name.prefix(1)))
        }
    }

    /// Over several batches, each handed over in report order as soon as it is read, the
    /// diagnostics are those of the in-memory lint, in the same order: a repeated id is found
    /// across batches, against the first file that declared it.
    @Test func batchesArriveInReportOrderAndMatchTheInMemoryLint() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<700 {
            // Every hundredth file repeats the id of file 0; every seventh is broken.
            let id = index % 100 == 0 ? "p0" : "p\(index)"
            // Each valid one has an error of its own too: a token endpoint over plain http.
            let text =
                index % 7 == 3 ? "id: [" : TestDescriptor(id: id).with(endpoints: [("token", "http://auth.example.com/token")]).yaml
            try Data(text.utf8).write(to: directory.appendingPathComponent(String(format: "f%04d.yaml", index)))
        }
        var batches: [[Diagnostic]] = []
        let count = try Linter().lintStreaming(paths: [directory]) { batches.append($0) }
        #expect(count == 700)
        #expect(batches.count == 3)
        let streamed = batches.flatMap { $0 }
        #expect(streamed.map(\.description) == Linter.sorted(streamed).map(\.description))
        let inMemory = Linter().lint(try Linter.files(in: [directory]).map { LintFile(document: DescriptorDocument.load(contentsOf: $0)) })
        #expect(streamed.map(\.description) == inMemory.map(\.description))
        let repeats = streamed.filter { $0.ruleID == "duplicate_id" }
        // Files 100, 200, 300, 400 and 600 repeat file 0's id (500 is one of the broken ones).
        #expect(repeats.count == 5)
        #expect(repeats.allSatisfy { $0.message.contains("f0000.yaml") })
    }

    /// The streaming, multi-core lint finds what the in-memory one finds, cross-file rules included.
    @Test func streamingAgreesWithTheInMemoryLint() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let valid = """
            schema_version: 1
            id: same
            display_name: Same
            protocol: oauth2
            issuer: https://auth.example.com
            endpoints:
              authorization: https://auth.example.com/authorize
              token: https://auth.example.com/token

            """
        for name in ["a", "b", "c"] { try Data(valid.utf8).write(to: directory.appendingPathComponent("\(name).yaml")) }
        try Data("id: [".utf8).write(to: directory.appendingPathComponent("d.yaml"))
        let streamed = try Linter().lintStreaming(paths: [directory])
        #expect(streamed.files == 4)
        let inMemory = Linter().lint(try Linter.files(in: [directory]).map { LintFile(document: DescriptorDocument.load(contentsOf: $0)) })
        #expect(streamed.diagnostics.map(\.description) == inMemory.map(\.description))
        #expect(streamed.diagnostics.filter { $0.ruleID == "duplicate_id" }.count == 2)
        #expect(streamed.diagnostics.contains { $0.ruleID == "malformed_yaml" && $0.location.path.hasSuffix("d.yaml") })
    }
}
