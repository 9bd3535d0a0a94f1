import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

@Suite struct DescriptorDocumentTests {
    private func parse(_ text: String, path: String = "example.yaml") -> DescriptorDocument {
        DescriptorDocument.parse(Data(text.utf8), path: path)
    }

    @Test func validDescriptorDecodesWithDefaults() throws {
        let document = parse(descriptorText(id: "example"))
        #expect(document.problems.isEmpty)
        let descriptor = try #require(document.descriptor)
        #expect(descriptor.id == "example")
        #expect(descriptor.security.pkce == .required)
        #expect(descriptor.security.state)
        #expect(descriptor.security.nonce == false)
        #expect(descriptor.tokenRequest.bodyEncoding == .form)
        #expect(descriptor.clientAuth.method == .none)
        #expect(descriptor.redirect.loopback.host == "127.0.0.1")
        #expect(descriptor.redirect.loopback.port == .ephemeral)
        #expect(descriptor.scopes.separator == " ")
    }

    /// Files loaded together go through each stage together, and each comes back, in the order asked, as the document
    /// its own bytes make alone: a file that cannot be read, one that is no YAML, one the schema refuses and valid ones,
    /// interleaved, so that a file's bytes or tree handed to the wrong file's stage shows.
    @Test func filesLoadedTogetherAreEachTheDocumentTheirBytesMake() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanUp() }
        let texts: [(name: String, text: String?)] = [
            ("missing.yaml", nil),
            ("a.yaml", TestDescriptor(id: "a").yaml),
            ("broken.yaml", "id: [unclosed\n"),
            ("refused.yaml", TestDescriptor(id: "refused").yaml + "unknown_key: 1\n"),
            ("b.yaml", TestDescriptor(id: "b", displayName: "B").yaml),
            ("empty.yaml", ""),
            ("c.yaml", TestDescriptor(id: "c").yaml),
        ]
        for (name, text) in texts { if let text { try folder.write(name, text) } }
        let documents = DescriptorDocument.load(texts.map { (folder.url.appendingPathComponent($0.name).path, AT_FDCWD, $0.name) }[...]) { $0 }
        try #require(documents.count == texts.count)
        for ((name, text), document) in zip(texts, documents) {
            #expect(document.path == name)
            guard let text else {
                #expect(document.problems.map(\.message).first?.hasPrefix("cannot read the file") == true, "\(document.problems)")
                continue
            }
            let alone = DescriptorDocument.parse(Data(text.utf8), path: name)
            #expect(document.problems == alone.problems, "\(name)")
            #expect(document.descriptor == alone.descriptor, "\(name)")
            #expect(document.root?.expandedCount == alone.root?.expandedCount, "\(name)")
        }
        #expect(documents.compactMap(\.descriptor?.id) == ["a", "b", "c"])
        #expect(documents[4].descriptor?.displayName == "B")
    }

    /// Files loaded within a budget of bytes stop being read once the files read hold that many: what comes back is
    /// for the first files (at least one), and the rest come from the next call, on the list's remaining slice.
    @Test func filesLoadedWithinABudgetOfBytesAreTheFirstOnes() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanUp() }
        let names = ["a", "b", "c"]
        for name in names { try folder.write("\(name).yaml", TestDescriptor(id: name).yaml) }
        let size = TestDescriptor(id: "a").yaml.utf8.count
        let files = names.map { (path: folder.url.appendingPathComponent("\($0).yaml").path, directory: AT_FDCWD, reportedAs: "\($0).yaml") }
        // The first file leaves the budget unspent, the second spends it.
        let first = DescriptorDocument.load(files[...], bytes: size + 1) { $0.descriptor?.id }
        #expect(first == ["a", "b"])
        let rest = DescriptorDocument.load(files[first.count...], bytes: size + 1) { $0.descriptor?.id }
        #expect(rest == ["c"])
        #expect(DescriptorDocument.load(files[...], bytes: 1) { $0.descriptor?.id } == ["a"])
        #expect(DescriptorDocument.load(files[...], bytes: 0) { $0.descriptor?.id } == ["a"])
        // Exactly spent by the first file: the second is not read.
        #expect(DescriptorDocument.load(files[...], bytes: size) { $0.descriptor?.id } == ["a"])
        #expect(DescriptorDocument.load(files[...]) { $0.descriptor?.id } == names)
        // A file that cannot be read holds nothing of the budget: the file after it is read in the same part, and the
        // next call goes on after that.
        let missing = (path: folder.url.appendingPathComponent("missing.yaml").path, directory: AT_FDCWD, reportedAs: "missing.yaml")
        let withMissing = [missing] + files
        var parts: [[String]] = []
        var done = 0
        while done < withMissing.count {
            let part = DescriptorDocument.load(withMissing[done...], bytes: 1) { $0.path }
            parts.append(part)
            done += part.count
        }
        #expect(parts == [["missing.yaml", "a.yaml"], ["b.yaml"], ["c.yaml"]])
    }

    /// A section's key that the mapping does not hold is passed over without its reader: the mapping's table of field
    /// values says so, for the field of that index and that name only, and a mapping read from a dictionary (JSON)
    /// never says so.
    @Test func aMappingTellsTheFieldsItLacksOnlyFromItsTableOfFields() throws {
        let tree = try #require(try YAMLTree.compose("security:\n  pkce: required\n  state: null\n"))
        let shapes = ShapeTable.descriptor
        let root = PlainObject(tree: tree, node: 0, shapes: shapes, shape: shapes.root, path: [])
        let security = try #require(try root.object(PlainObject.Key(stringValue: "security")) { $0 })
        let keys = ProviderDescriptor.Security.keys
        let index = { (name: String) in keys.firstIndex { $0.field.name == name } ?? -1 }
        #expect(!security.lacks(field: index("pkce"), named: "pkce"))
        // Present with a null value: its reader says so, not the table.
        #expect(!security.lacks(field: index("state"), named: "state"))
        #expect(security.lacks(field: index("nonce"), named: "nonce"))
        // A name the field at that index does not have, or an index past the fields: nothing can be told.
        #expect(!security.lacks(field: index("nonce"), named: "pkce"))
        #expect(!security.lacks(field: keys.count, named: "nonce"))
        let plain = PlainObject(["pkce": .string("required")], path: ["security"])
        #expect(!plain.lacks(field: index("nonce"), named: "nonce"))
    }

    /// The decoder reads a mapping's fields from what the schema check found each key to be (``SchemaValidator/keyFields``)
    /// and gets the descriptor that searching for each key's name gets, for every bundled descriptor; a record made for
    /// another shape is not used, and a record for the right shape is (swapping two keys' fields swaps their values).
    @Test func keysFoundByTheSchemaCheckDecodeAsKeysSearchedForByName() throws {
        let directory = try #require(BundledProviders.directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(names.count >= 3)
        let shapes = ShapeTable.descriptor
        for name in names {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let root = try #require(try YAMLTree.compose(text)?.root)
            var validator = SchemaValidator(path: name)
            validator.check(root, against: shapes, keyPath: [])
            try #require(validator.problems.isEmpty, "\(name)")
            let recorded = validator.keyFields
            #expect(recorded.count == root.tree.children.count && recorded.contains { $0.shape >= 0 }, "\(name)")
            // Each record names the field whose name is the key's text.
            for (position, record) in recorded.enumerated() where record.shape >= 0 && record.field >= 0 {
                let object = shapes.nodes[Int(record.shape)]
                #expect(shapes.names[Int(object.first) + Int(record.field)] == root.tree.scalarText(Int(root.tree.children[position])))
            }
            let searched = try DescriptorDocument.decode(root, sourcePath: name)
            #expect(try DescriptorDocument.decode(root, sourcePath: name, keyFields: recorded) == searched, "\(name)")
            // Records for another shape: each key is searched for by name, to the same descriptor.
            let elsewhere = recorded.map { ShapeTable.KeyField(shape: $0.shape < 0 ? -1 : $0.shape + 1, field: 0) }
            #expect(try DescriptorDocument.decode(root, sourcePath: name, keyFields: elsewhere) == searched, "\(name)")
        }
        // The root's `id` and `display_name` fields swapped in the records: the decoder reads each from the other's key.
        let text = TestDescriptor(id: "swapped", displayName: "other").yaml
        let root = try #require(try YAMLTree.compose(text)?.root)
        var validator = SchemaValidator(path: "swapped.yaml")
        validator.check(root, against: shapes, keyPath: [])
        var records = validator.keyFields
        let rootEntry = root.tree.entries[root.index]
        let positions = stride(from: Int(rootEntry.firstChild), to: Int(rootEntry.firstChild + rootEntry.childCount), by: 2)
        let id = try #require(positions.first { root.tree.scalarText(Int(root.tree.children[$0])) == "id" })
        let displayName = try #require(positions.first { root.tree.scalarText(Int(root.tree.children[$0])) == "display_name" })
        (records[id].field, records[displayName].field) = (records[displayName].field, records[id].field)
        let swapped = try DescriptorDocument.decode(root, sourcePath: "swapped.yaml", keyFields: records)
        #expect(swapped.id == "other" && swapped.displayName == "swapped")
    }

    @Test func everyBundledDescriptorSurvivesAJSONRoundTrip() throws {
        // Decodable goes through the same plain-value constructors as a descriptor file.
        let registry = try ProviderRegistry.load()
        #expect(registry.all.count >= 3)
        for entry in registry.all {
            var descriptor = entry.descriptor
            descriptor.sourcePath = nil
            let json = try JSONEncoder().encode(descriptor)
            #expect(try JSONDecoder().decode(ProviderDescriptor.self, from: json) == descriptor, "\(descriptor.id)")
        }
    }

    @Test func jsonWithAWrongTypeOrAMissingKeyIsADecodingError() throws {
        let wrongType = #"{"schema_version": 1, "id": "x", "display_name": "X", "protocol": "oidc", "security": {"pkce": true}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProviderDescriptor.self, from: Data(wrongType.utf8)) }
        let missing = #"{"schema_version": 1, "id": "x", "protocol": "oidc"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProviderDescriptor.self, from: Data(missing.utf8)) }
        let minimal = #"{"schema_version": 1, "id": "x", "display_name": "X", "protocol": "oidc", "redirect": {"loopback": {"port": 8080}}}"#
        let descriptor = try JSONDecoder().decode(ProviderDescriptor.self, from: Data(minimal.utf8))
        #expect(descriptor.security.nonce == true)
        #expect(descriptor.redirect.loopback.port == .fixed(8080))
        #expect(descriptor.grantTypes == ["authorization_code", "refresh_token"])
    }

    @Test func oidcDefaultsNonceOn() throws {
        let text = descriptorText(id: "example").replacingOccurrences(of: "protocol: oauth2", with: "protocol: oidc")
        #expect(parse(text).descriptor?.security.nonce == true)
    }

    @Test func syntaxErrorIsPositioned() throws {
        let document = parse("schema_version: 1\nid: x\nendpoints: [unclosed\n")
        let problem = try #require(document.problems.first)
        #expect(problem.kind == .malformedYAML)
        #expect(problem.location.line >= 3)
        #expect(document.descriptor == nil)
    }

    @Test func unknownKeySuggestsTheNearestKnownOne() throws {
        let document = parse(descriptorText(id: "example", extra: "securty:\n  pkce: required\n"))
        let problem = try #require(document.problems.first)
        #expect(problem.kind == .unknownKey)
        #expect(problem.message.contains("did you mean `security`"))
        #expect(problem.location.line == 9)
        #expect(problem.location.column == 1)
    }

    @Test func nestedUnknownKeyIsPositionedAtTheKey() throws {
        let document = parse(descriptorText(id: "example", extra: "security:\n  pkce: required\n  nonse: true\n"))
        let problem = try #require(document.problems.first)
        #expect(problem.kind == .unknownKey)
        #expect(problem.keyPath == "security.nonse")
        #expect(problem.location.line == 11)
        #expect(problem.location.column == 3)
        #expect(problem.message.contains("`nonce`"))
    }

    @Test(arguments: [
        ("scopes:\n  default: openid\n", "scopes.default", "expected a list"),
        ("security:\n  state: maybe\n", "security.state", "expected true or false"),
        ("security:\n  pkce: sometimes\n", "security.pkce", "`sometimes` is not allowed"),
        ("redirect:\n  loopback:\n    port: 70000\n", "redirect.loopback.port", "expected"),
        ("display_name_extra: 1\n", "display_name_extra", "unknown key"),
        ("token_request:\n  headers:\n    Accept: 12\n", "token_request.headers.Accept", "quote it"),
    ])
    func wrongValuesArePositionedAtTheValue(extra: String, keyPath: String, fragment: String) throws {
        let document = parse(descriptorText(id: "example", extra: extra))
        let problem = try #require(document.problems.first)
        #expect(problem.keyPath == keyPath)
        #expect(problem.message.contains(fragment), "\(problem.message)")
        #expect(problem.location.line > 8)
    }

    @Test func missingRequiredKeysAreEachReported() {
        let document = parse("schema_version: 1\nid: example\n")
        let missing = document.problems.filter { $0.kind == .missingField }.map(\.keyPath)
        #expect(missing == ["display_name", "protocol"])
    }

    @Test func unsupportedSchemaVersionIsExplained() throws {
        let document = parse(descriptorText(id: "example").replacingOccurrences(of: "schema_version: 1", with: "schema_version: 2"))
        let problem = try #require(document.problems.first)
        #expect(problem.message.contains("unsupported value 2"))
    }

    @Test func emptyFileIsAProblemNotACrash() throws {
        for text in ["", "\n\n", "# only a comment\n"] {
            let problem = try #require(parse(text).problems.first)
            #expect(problem.kind == .malformedYAML)
            #expect(problem.message.contains("empty"))
        }
    }

    @Test func topLevelListIsAWrongType() throws {
        let problem = try #require(parse("- a\n- b\n").problems.first)
        #expect(problem.kind == .wrongType)
        #expect(problem.message.contains("expected a mapping"))
    }

    @Test func binaryJunkIsRejectedWithAPosition() throws {
        var bytes = Array("schema_version: 1\nid: x".utf8)
        bytes += [0x00, 0xFF, 0xFE, 0x01]
        let problem = try #require(DescriptorDocument.parse(Data(bytes), path: "junk.yaml").problems.first)
        #expect(problem.message.contains("NUL"))
        #expect(problem.location.line == 2)
        #expect(problem.location.column == 6)
    }

    @Test func invalidUTF8IsRejectedWithAPosition() throws {
        let bytes = Array("id: ok\nname: ".utf8) + [0xC3, 0x28]
        let problem = try #require(DescriptorDocument.parse(Data(bytes), path: "latin1.yaml").problems.first)
        #expect(problem.message.contains("UTF-8"))
        #expect(problem.location.line == 2)
    }

    @Test func tenMegabyteFileIsRefusedQuickly() throws {
        let data = Data(repeating: UInt8(ascii: "a"), count: 10 << 20)
        let problem = try #require(DescriptorDocument.parse(data, path: "huge.yaml").problems.first)
        #expect(problem.message.contains("larger than"))
    }

    @Test func tenMegabyteFileOnDiskIsNotReadWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.url.appendingPathComponent("huge.yaml")
        try Data(repeating: UInt8(ascii: "#"), count: 10 << 20).write(to: file)
        let problem = try #require(DescriptorDocument.load(contentsOf: file).problems.first)
        #expect(problem.message.contains("larger than"))
    }

    @Test(arguments: [
        String(repeating: "[", count: 100_000),
        String(repeating: "{a: ", count: 50_000),
        String(repeating: "- ", count: 100_000) + "x",
        (0..<300).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n"),
    ])
    func deepNestingIsRefusedBeforeParsing(text: String) throws {
        let problem = try #require(parse(text).problems.first)
        #expect(problem.kind == .malformedYAML)
        #expect(problem.message.contains("nesting"))
    }

    /// Aliases nest an anchor's whole depth where they stand: a chain of them is refused as too
    /// deep although no line of the text nests past the limit.
    @Test func nestingThroughAliasesIsCounted() throws {
        var lines: [String] = []
        for level in 0..<4 {
            let inner = level == 0 ? "x" : "*a\(level - 1)"
            lines.append("k\(level): &a\(level) " + String(repeating: "[", count: 30) + inner + String(repeating: "]", count: 30))
        }
        let problem = try #require(parse(lines.joined(separator: "\n") + "\n").problems.first)
        #expect(problem.kind == .malformedYAML)
        // Pointed at the alias that goes too deep: `*a1` on the third line.
        #expect(problem.message.hasPrefix("nesting is deeper than \(DescriptorDocument.maximumDepth) levels through this alias"))
        #expect(problem.location.line == 3)
        #expect(problem.location.column == 39)
    }

    @Test func aMergeKeyIsNamed() throws {
        let problem = try #require(parse(descriptorText(id: "example") + "base: &b {x: 1}\n<<: *b\n").problems.first { $0.message.contains("merge") })
        #expect(problem.message == "YAML merge keys (`<<`) are not read in descriptors; write the keys out")
    }

    /// A long string named by a few aliases is small in the file and large in everything that reads
    /// it: the text once expanded is bounded as the nodes are.
    @Test func aliasesOfALongStringAreCutOff() throws {
        let long = String(repeating: "x", count: 300_000)
        let text = descriptorText(id: "example") + "extra_names: &n \(long)\nmore: [" + Array(repeating: "*n", count: 8).joined(separator: ", ") + "]\n"
        let problem = try #require(parse(text).problems.first)
        #expect(problem.kind == .malformedYAML)
        #expect(problem.message.hasPrefix("document's text expands to more than 2048 KiB"))
        // The same string named once stays within the bound (and is refused only as an unknown key).
        let once = parse(descriptorText(id: "example") + "extra_names: \(long)\n")
        #expect(once.problems.allSatisfy { $0.kind == .unknownKey }, "\(once.problems.map(\.message))")
    }

    /// The schema check keeps its own count of the nodes it visits, behind the composer's: a tree composed without the
    /// document's budget, whose aliases expand to 62,500 scalars, is checked up to the limit and refused once, every
    /// scalar counted (the check records a scalar's place only when it has something to say about it).
    @Test func theSchemaCheckCountsEveryScalarItVisits() throws {
        let items = Array(repeating: "x", count: 250).joined(separator: ", ")
        var lines = ["schema_version: 1", "id: example", "display_name: Example", "protocol: oauth2", "variables:"]
        lines.append("  v0: {description: d, enum: &e [\(items)]}")
        for index in 1..<250 { lines.append("  v\(index): {description: d, enum: *e}") }
        let tree = try #require(try YAMLTree.compose(lines.joined(separator: "\n") + "\n"))
        var validator = SchemaValidator(path: "bomb.yaml")
        validator.check(tree.root, against: ShapeTable.descriptor, keyPath: [])
        let refusals = validator.problems.filter { $0.message.contains("expands to more than 50000 nodes") }
        #expect(refusals.count == 1, "\(validator.problems.prefix(3).map(\.message))")
    }

    @Test func aliasBombIsCutOff() throws {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            lines.append("a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]")
        }
        lines.append("schema_version: 1")
        let document = parse(lines.joined(separator: "\n") + "\n")
        #expect(document.problems.count == 1)
        #expect(document.problems.first?.message.contains("expands to more than 50000 nodes once its aliases are followed") == true, "\(document.problems)")
        #expect(document.descriptor == nil)
    }

    /// An unquoted `{variable}` at the start of a value is a YAML mapping; the syntax error says to quote it (a newcomer
    /// got only libyaml's "did not find expected key").
    @Test func anUnquotedTemplateIsToldToBeQuoted() throws {
        let text = "schema_version: 1\nid: example\ndisplay_name: E\nprotocol: oauth2\nendpoints:\n  authorization: {tenant}.example.com/authorize\n  token: https://a.example.com/token\n"
        let message = parse(text).problems.first?.message ?? ""
        #expect(message.contains("quote it ('{tenant}.example.com/authorize')"), "\(message)")
        let mapping = parse("schema_version: 1\nid: example\nextra: {a: b\n").problems.first?.message ?? ""
        #expect(!mapping.contains("quote it"), "a flow mapping that is one is not told to be quoted: \(mapping)")
    }

    /// A document that is simply that large is not blamed on aliases it does not have (a newcomer's 40,000 keys).
    @Test func aLargeDocumentWithoutAliasesIsToldSo() throws {
        let text = (0..<40_000).map { "u\($0): 1" }.joined(separator: "\n") + "\n"
        let document = parse(text)
        #expect(document.problems.count == 1)
        let message = document.problems.first?.message ?? ""
        #expect(message.contains("holds more than 50000 nodes") && !message.contains("alias"), "\(message)")
    }

    @Test func aRepeatedKeyIsPointedAtWhereItIsRepeated() throws {
        let text = descriptorText(id: "example") + "scopes:\n  default: [a]\n  default: [b]\n"
        let problem = try #require(parse(text).problems.first)
        let repeatLine = text.split(separator: "\n", omittingEmptySubsequences: false).lastIndex { $0.hasPrefix("  default:") }.map { $0 + 1 }
        #expect(problem.location.line == repeatLine)
        #expect(problem.location.column == 3)
    }

    @Test func aTabIndentIsNamed() throws {
        let problem = try #require(parse(descriptorText(id: "example") + "scopes:\n\tdefault: [a]\n").problems.first)
        #expect(problem.message == "a TAB indents this line; YAML indents with spaces only")
    }

    @Test func aSingleAllowedValueIsNamedPlainly() throws {
        let text = descriptorText(id: "example").replacingOccurrences(of: "schema_version: 1", with: "schema_version: \"1\"")
        let problem = try #require(parse(text).problems.first)
        #expect(problem.message.hasPrefix("expected the integer 1, found the string `1`"), "\(problem.message)")
    }

    @Test func sizesAreCappedWithPositionedErrors() throws {
        let many = (0..<17).map { "{v\($0)}" }.joined(separator: ".")
        let placeholders = try #require(parse(descriptorText(id: "example").replacingOccurrences(
            of: "https://auth.example.com/authorize", with: "https://\(many).example.com/authorize")).problems.first)
        #expect(placeholders.message.contains("at most 16 are allowed"))
        let variables = (0..<300).map { "  v\($0):\n    description: x\n" }.joined()
        let problem = try #require(parse(descriptorText(id: "example") + "variables:\n" + variables).problems.first)
        #expect(problem.message == "`variables` has 300 entries; at most 256 are allowed")
    }

    @Test func substitutionIsOnePassAndDropsSeparatorsOfEmptyValues() {
        let template = URLTemplate("https://{region}.{tenant}.example.com/{a}/{b}/x")
        #expect(template.substituting(["region": "", "tenant": "acme", "a": "1", "b": ""]) == "https://acme.example.com/1/x")
        #expect(template.substituting(["tenant": "acme"]) == "https://{region}.acme.example.com/{a}/{b}/x")
        // A value that looks like a placeholder is not expanded again.
        #expect(URLTemplate("https://{a}.example.com").substituting(["a": "{b}", "b": "x"]) == "https://{b}.example.com")
    }

    @Test func anOpenBraceStaysTextWhenRendering() {
        #expect(URLTemplate("https://a.example.com/a}b{c").substituting(["c": "x"]) == "https://a.example.com/a}b{c")
        #expect(URLTemplate("https://{t}.example.com/{x").substituting(["t": "acme"]) == "https://acme.example.com/{x")
    }

    @Test func hostsAndPlaceholdersAreReadFromTheBytes() {
        #expect(URLTemplate("https://user@{tenant}.Example.com:8443/p?q=a://b").hostText == "{tenant}.example.com")
        #expect(URLTemplate("http://[::1]:8080/cb").hostText == "[::1]")
        #expect(URLTemplate("mailto:x").hostText == nil)
        #expect(URLTemplate("https://ü{a}.example.com/{b}?x={c}#{d}").placeholders.map { "\($0.name):\($0.part)" }
            == ["a:host", "b:path", "c:query", "d:fragment"])
        #expect("a-----BEGIN KEY".firstUTF8Range(of: "-----BEGIN") != nil)
        #expect("----BEGI-----BEGIX".firstUTF8Range(of: "-----BEGIN") == nil)
        #expect("é://x".firstUTF8Range(of: "://").map { "é://x"[$0.upperBound...] } == "x")
    }

    /// The URL check reads the authority from the bytes: what no server address can hold is
    /// refused with a reason, and what one can (placeholders, IPv6, ports) passes.
    @Test(arguments: [
        ("https://user@auth.example.com/authorize", "names a user or password"),
        ("https://user:pw@auth.example.com/authorize", "names a user or password"),
        ("https://auth.example.com:0/authorize", "port `0` is not a number from 1 to 65535"),
        ("https://auth.example.com:99999/authorize", "port `99999`"),
        ("https://auth.example.com:/authorize", "a `:` after the host but no port"),
        ("https://auth.example.com:8x/authorize", "port `8x`"),
        ("https://[zz]/authorize", "is not an IPv6 address"),
        ("https://[::1/authorize", "no closing `]`"),
        ("https://[::1]x/authorize", "only a `:port` may follow"),
        ("https://bücher.example/authorize", "not ASCII"),
        ("https://a:b:c/authorize", "its host holds `:`"),
        ("https://auth.exa%6dple.com/authorize", "its host holds `%`"),
        ("https://auth.example.com/auth\u{01}orize", "control character"),
        ("https:///authorize", "no host"),
        ("https:auth.example.com/authorize", "no host"),
        ("ftp://auth.example.com/authorize", "scheme must be https"),
        ("://auth.example.com/authorize", "no scheme"),
        ("https://auth.example.com/a}b{c", "braces do not pair up"),
        ("https://{{tenant}}.example.com/authorize", "braces do not pair up"),
        ("https://auth.example.com/\u{80}", "control or invisible character U+0080"),
        ("https://auth.example.com/\u{202E}txt", "control or invisible character U+202E"),
        ("https://[:]/authorize", "is not an IPv6 address"),
        ("https://[12345::]/authorize", "is not an IPv6 address"),
        ("https://[1:2:3:4:5:6:7:8:9]/authorize", "is not an IPv6 address"),
        ("https://./authorize", "empty label"),
        ("https://a..b/authorize", "empty label"),
        ("https://-auth.example.com/authorize", "a label that begins or ends with `-`"),
        ("https://999.999.999.999/authorize", "is not an IPv4 address"),
        ("https://1.2.3.4.5/authorize", "is not an IPv4 address"),
        ("https://auth.example.com/%zz", "`%` not followed by two hex digits"),
    ])
    func urlsNoServerCanHaveAreRefused(url: String, reason: String) throws {
        let text = descriptorText(id: "example").replacingOccurrences(
            of: "authorization: https://auth.example.com/authorize", with: "authorization: \"\(url.unicodeScalars.map(Self.yamlEscaped).joined())\"")
        let problems = parse(text).problems
        #expect(problems.contains { $0.keyPath == "endpoints.authorization" && $0.message.contains(reason) }, "\(problems.map(\.message))")
    }

    /// The URL check reads bytes eight at a time while a word holds nothing it looks at: each odd byte, or text beyond
    /// ASCII, at each place in a path (and so at each place in a word and across two) gets the verdict it gets anywhere.
    @Test func eachOddByteIsSeenWhereverItStandsInAWord() {
        let base = "https://auth.example.com/", path = Array("abcdefghijklmnopqrstuvwxyz-0123456789_ABC")
        let cases: [(inserted: String, reason: String?)] = [
            (" ", "white space"), ("\t", "white space"), ("\u{01}", "control character"), ("\u{7F}", "control character"),
            ("\u{80}", "control or invisible character U+0080"), ("\u{202E}", "U+202E"), ("é", nil), ("{", "braces do not pair up"),
            ("}", "braces do not pair up"), ("{x}", nil), ("%zz", "`%` not followed by two hex digits"), ("%41", nil),
            ("!", nil), ("~", nil), ("z", nil), ("|", nil),
        ]
        for (inserted, reason) in cases {
            for offset in 0...path.count {
                let url = base + String(path[..<offset]) + inserted + String(path[offset...])
                let problem = URLTemplate(url).shapeProblem
                if let reason {
                    #expect(problem?.contains(reason) == true, "\(url.debugDescription): \(problem ?? "none")")
                } else {
                    #expect(problem == nil, "\(url.debugDescription): \(problem ?? "none")")
                }
            }
        }
    }

    /// A scalar as a YAML double-quoted string writes it: controls and anything beyond ASCII as `\uXXXX`.
    private static func yamlEscaped(_ scalar: Unicode.Scalar) -> String {
        guard scalar.value < 0x20 || scalar.value >= 0x7F else { return String(scalar) }
        let code = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - code.count)) + code
    }

    @Test(arguments: [
        "https://{tenant}.example.com:{port}/authorize", "http://[::1]:8080/authorize", "https://[2001:db8::1]/authorize",
        "https://auth.example.com:443/authorize", "https://auth.example.com", "https://{host}/authorize?x={y}",
        "https://1.2.3.4/authorize", "https://auth.example.com/a%41b", "https://{tenant}.example.com./x", "https://{tenant}-api.example.com/x",
    ])
    func urlsAServerCanHavePass(url: String) {
        #expect(URLTemplate(url).shapeProblem == nil)
    }

    /// The placeholders read from the bytes are those a reading character by character finds, in the same parts, for
    /// templates mixing every byte the reading looks at (and its neighbours) with letters and text beyond ASCII.
    @Test func placeholdersAreThoseACharacterReadingFinds() {
        func reference(_ template: String) -> [String] {
            var found: [String] = [], part = "scheme", name: String?, previous: Character = " "
            for character in template {
                if var current = name {
                    if character == "}" {
                        found.append("\(current):\(part)")
                        name = nil
                    } else {
                        current.append(character)
                        name = current
                    }
                } else if character == "{" {
                    name = ""
                } else if character == "/", part == "scheme", previous == "/" {
                    part = "host"
                } else if character == "/", part == "host" {
                    part = "path"
                } else if character == "?", part != "fragment", part != "query" {
                    part = "query"
                } else if character == "#" {
                    part = "fragment"
                }
                previous = name == nil ? character : " "
                if character == "{" { previous = " " }
            }
            return found
        }
        // Each mark, the bytes either side of it in ASCII, a letter, and a character beyond ASCII.
        let pieces = ["{", "}", "/", "?", "#", "z", "|", "~", ".", "0", "@", ">", "\"", "%", "é", "a", "ab"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let template = (0..<Int.random(in: 0...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(URLTemplate(template).placeholders.map { "\($0.name):\($0.part)" } == reference(template), "\(template.debugDescription)")
        }
    }

    /// Key paths are followed through mappings by key and through lists by index, and lead nowhere past a scalar, past
    /// a list's end or by a key that is not a plain index.
    @Test func nodesAreFoundByKeyPath() {
        let document = parse("a:\n  b: [x, y]\n  c: 1\nd:\n  - e: 2\n  - f: 3\n")
        #expect(document.node(at: [])?.kind == .mapping)
        #expect(document.node(at: ["a", "b", "1"])?.string == "y")
        #expect(document.node(at: ["d", "1", "f"])?.line == 6)
        #expect(document.node(at: ["d", "1"])?.column == 5)
        for missing in [["d", "2"], ["d", "x"], ["d", "+1"], ["d", ""], ["d", "99999999999999999999"], ["a", "c", "z"], ["a", "z"], ["z"]] {
            #expect(document.node(at: missing) == nil, "\(missing)")
        }
        #expect(document.location(of: ["d", "1", "g"]).line == 6)
    }

    /// A value checked against one of the schema's patterns: text beyond ASCII is matched by its characters, a
    /// value that fits passes, and one that does not is named.
    @Test func schemaPatternsMatchTextBeyondASCII() {
        #expect(parse(descriptorText(id: "acme-2")).problems.isEmpty)
        let messages = parse(descriptorText(id: "acmé")).problems.map(\.message)
        #expect(messages.count == 1 && messages[0].hasPrefix("`acmé` does not match the pattern"), "\(messages)")
    }

    @Test func longValuesAreCutInMessages() throws {
        let long = String(repeating: "X", count: 10_000)
        let text = descriptorText(id: long) + "? \(String(repeating: "Q", count: 5_000))\n: 1\n"
        let messages = parse(text).problems.map(\.message)
        #expect(messages.contains { $0.hasPrefix("`\(long.prefix(80))…` (10000 characters) does not match the pattern") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("unknown key `\(String(repeating: "Q", count: 80))…` (5000 characters)") }, "\(messages)")
        #expect(messages.allSatisfy { $0.count < 300 })
    }

    /// A UTF-8 byte order mark at the start is allowed (YAML 1.2), and positions are counted after it.
    @Test func aByteOrderMarkIsRead() throws {
        let text = descriptorText(id: "example")
        let document = DescriptorDocument.parse(Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)), path: "example.yaml")
        #expect(document.problems.isEmpty, "\(document.problems.map(\.message))")
        #expect(document.descriptor?.id == "example")
        #expect(document.location(of: ["id"]) == parse(text).location(of: ["id"]))
        let onlyMark = DescriptorDocument.parse(Data([0xEF, 0xBB, 0xBF]), path: "empty.yaml")
        #expect(onlyMark.problems.first?.message.contains("empty") == true, "\(onlyMark.problems.map(\.message))")
    }

    @Test func anEmptyURLIsCalledEmpty() throws {
        let document = parse(descriptorText(id: "example", extra: "docs_url: \"\"\n"))
        let problem = try #require(document.problems.first)
        #expect(problem.message == "the URL is empty", "\(problem.message)")
        #expect(problem.keyPath == "docs_url")
    }

    @Test func duplicateKeysAreReported() throws {
        let document = parse(descriptorText(id: "example") + "id: again\n")
        let problem = try #require(document.problems.first)
        #expect(problem.kind == .malformedYAML)
        #expect(problem.message.contains("duplicate key"), "\(problem.message)")
        #expect(problem.message.contains("id"))
    }

    /// Two keys repeated: one problem naming both, at the first repeat in the file (not the first name in order).
    @Test func twoRepeatedKeysArePositionedAtTheFirstRepeat() throws {
        let text = "schema_version: 1\nprotocol: oauth2\nprotocol: oidc\nissuer: https://a.example\nissuer: https://b.example\n"
        let problem = try #require(parse(text).problems.first)
        #expect(problem.message.contains("issuer") && problem.message.contains("protocol"), "\(problem.message)")
        #expect(problem.location.line == 3, "\(problem)")
    }

    @Test func keyLocationPointsAtTheKey() {
        let document = parse(descriptorText(id: "example"))
        let location = document.keyLocation(of: ["endpoints", "token"])
        #expect(location.line == 8)
        #expect(location.column == 3)
        #expect(document.location(of: ["endpoints", "token"]).column == 10)
        // A missing key falls back to its nearest present ancestor: the `endpoints` mapping on line 7.
        #expect(document.location(of: ["endpoints", "missing", "deeper"]).line == 7)
    }

    /// A list item is found by its index, in block and in flow lists: a problem with the second
    /// resource points at the second resource, not at the list.
    @Test func locationStepsIntoListItems() {
        let text =
            descriptorText(id: "example")
            + "resources:\n  - scope: profile\n    url: https://api.example.com/p\n  - scope: email\n    url: http://api.example.com/m\n"
            + "grant_types: [authorization_code, refresh_token]\n"
        let document = parse(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let urlLine = 1 + (lines.firstIndex { $0.contains("http://api.example.com/m") } ?? -2)
        #expect(document.location(of: ["resources", "1", "url"]).line == urlLine)
        #expect(document.location(of: ["resources", "1", "url"]).column == 10)
        #expect(document.location(of: ["resources", "1"]).line == urlLine - 1)
        let flow = document.location(of: ["grant_types", "1"])
        #expect(flow.line == urlLine + 1)
        #expect(flow.column == 35)
        // An index past the end, or a step that is no index, falls back to the list.
        #expect(document.location(of: ["resources", "2", "url"]).line == urlLine - 3)
        #expect(document.location(of: ["resources", "+1", "url"]).line == urlLine - 3)
    }
}
