import Foundation
import Testing
import OAuthFlowTestSupport
import Yams
import OAuthFlow

/// The descriptor composer against Yams' own on the same libyaml events: the same tree
/// (kinds, texts, positions) for every document both accept, and the same verdict on
/// broken ones, over the bundled descriptors and thousands of random mutations of them.
@Suite struct YAMLTreeTests {
    static let bundled: [String] = {
        guard let directory = BundledProviders.directory else { return [] }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.sorted().compactMap {
            try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)
        }
    }()

    @Test func bundledDescriptorsComposeAsYamsComposesThem() throws {
        #expect(Self.bundled.count >= 3)
        for text in Self.bundled {
            let ours = try #require(try YAMLTree.compose(text)?.root)
            let theirs = try #require(try Yams.compose(yaml: text, .basic))
            #expect(Self.same(ours, theirs), "\(text.prefix(80))")
        }
    }

    @Test func mutatedDescriptorsGetTheSameVerdictAndTree() throws {
        var generator = SystemRandomNumberGenerator()
        let inserts = [":", "-", "[", "]", "{", "}", "&a ", "*a", "!!str ", "'", "\"", "#", " ", "\n", "  ", "? ", "|", ">", ",", "\t"]
        var disagreements: [String] = []
        for round in 0..<3_000 {
            var bytes = Array(Self.bundled[round % Self.bundled.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(contentsOf: inserts.randomElement(using: &generator)!.utf8, at: at)
                default:
                    // Repeat a line: the usual source of duplicate keys.
                    let start = bytes[..<at].lastIndex(of: 10).map { $0 + 1 } ?? 0
                    let end = bytes[at...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
                    bytes.insert(contentsOf: bytes[start..<end], at: end)
                }
            }
            guard let text = String(bytes: bytes, encoding: .utf8) else { continue }  // the mutations that are still UTF-8
            let ours = Result { () throws(YAMLSyntaxError) in try YAMLTree.compose(text)?.root }
            let theirs = Result { try Yams.compose(yaml: text, .basic) }
            switch (ours, theirs) {
            case let (.success(tree?), .success(node?)):
                if !Self.same(tree, node) { disagreements.append(text) }
            case (.success(nil), .success(nil)), (.failure, .failure):
                break
            default:
                disagreements.append(text)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements; first: \(disagreements.first ?? "")")
    }

    /// The composer makes room for the scalars' text as long as the file, which escapes and folding only shorten but
    /// `\L` and `\P` (two bytes each as written, three once read) lengthen: such text is kept whole, as Yams reads it.
    @Test func scalarsLongerThanTheirFileKeepAllTheirText() throws {
        for count in [1, 7, 40, 300] {
            let escapes = String(repeating: "\\L\\P", count: count)
            let text = "a: \"\(escapes)\"\nb: \"\(escapes)x\"\nc: [\"\(escapes)\", plain]\n"
            let ours = try #require(try YAMLTree.compose(text)?.root)
            let theirs = try #require(try Yams.compose(yaml: text, .basic))
            #expect(Self.same(ours, theirs), "\(count)")
            let expected = String(repeating: "\u{2028}\u{2029}", count: count)
            #expect(ours["a"]?.string == expected)
            #expect(ours["b"]?.string == expected + "x")
            #expect(ours["c"]?.items.map(\.string) == [expected, "plain"])
            // From seven pairs on, the three long scalars alone hold more bytes than the whole file.
            if count >= 7 { #expect(3 * expected.utf8.count > text.utf8.count) }
        }
    }

    @Test func aliasesShareTheAnchoredNodeAndCountEveryExpansion() throws {
        let root = try #require(try YAMLTree.compose("a: &x [1, 2, 3]\nb: [*x, *x, *x]\n")?.root)
        // 1 root + keys a, b + [1,2,3] (4 nodes) + b's list (1 + 3 × 4).
        #expect(root.expandedCount == 1 + 2 + 4 + 13)
        #expect(root["b"]?.items.first?.items.map(\.string) == ["1", "2", "3"])
        #expect(throws: YAMLSyntaxError.self) { try YAMLTree.compose("a: *missing\n") }
        #expect(throws: YAMLSyntaxError.self) { try YAMLTree.compose("a: 1\n---\nb: 2\n") }
    }

    /// Two keys that are collections (`? ` keys) holding the same are refused, as Yams refuses them; the random
    /// mutations found the two composers disagreeing on a descriptor with `? scopes: [offline_access]` written twice.
    @Test func repeatedCollectionKeysAreRefusedAsYamsRefusesThem() throws {
        for text in ["a: 1\n? b: 1\n? b: 1\n", "? [x, y]\n? [x, y]\n", "? {b: [1, 2]}\n? {b: [1, 2]}\n", "? &k {b: 1}\n? *k\n"] {
            let error = #expect(throws: YAMLSyntaxError.self, "\(text)") { try YAMLTree.compose(text) }
            #expect(error?.problem == "duplicate keys", "\(text)")
            #expect(throws: (any Error).self, "\(text)") { try Yams.compose(yaml: text, .basic) }
        }
        for text in ["? b: 1\n? b: 2\n", "? [x, y]\n? [y, x]\n", "? {b: 1}\n? [b, 1]\n", "? [x]\nx: 1\n"] {
            let ours = try #require(try YAMLTree.compose(text)?.root, "\(text)")
            let theirs = try #require(try Yams.compose(yaml: text, .basic), "\(text)")
            #expect(Self.same(ours, theirs), "\(text)")
        }
    }

    /// Collection keys that name a large text through an alias are not compared past the document's text limit: 40,000
    /// of them naming 400 kB each took over a gigabyte before the comparison was bounded. The document is refused for
    /// its expansion instead.
    @Test(.timeLimit(.minutes(1))) func collectionKeysPastTheTextLimitAreLeftToTheExpansionCheck() throws {
        let bomb = "s: &s " + String(repeating: "a", count: 400_000) + "\n" + (0..<40_000).map { "? [*s, k\($0)]\n" }.joined()
        let root = try #require(try YAMLTree.compose(bomb)?.root)
        #expect(root.expandedBytes > DescriptorDocument.maximumExpandedBytes)
    }

    @Test func repeatedKeysAreNamedAtTheirSecondOccurrence() throws {
        do {
            _ = try YAMLTree.compose("b: 1\na: 2\nb: 3\n'a': 4\n")
            Issue.record("repeated keys were accepted")
        } catch {
            guard case let .duplicateKeys(names) = error.kind else { Issue.record("\(error.kind)"); return }
            #expect(names == ["a", "b"])
            // At the first repeat in the file (`b`'s), the line to look at first; both names in the message.
            #expect((error.line, error.column) == (3, 1))
        }
    }

    /// Whether a tree and a Yams node hold the same kinds, texts and positions.
    static func same(_ ours: YAMLNode, _ theirs: Node) -> Bool {
        guard ours.line == theirs.mark?.line, ours.column == theirs.mark?.column else { return false }
        switch (ours.kind, theirs) {
        case let (.scalar, .scalar(scalar)):
            return ours.string == scalar.string
        case let (.sequence, .sequence(sequence)):
            return ours.items.count == sequence.count && zip(ours.items, sequence).allSatisfy { same($0, $1) }
        case let (.mapping, .mapping(mapping)):
            return ours.pairs.count == mapping.count
                && zip(ours.pairs, mapping).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
        default:
            return false
        }
    }
}
