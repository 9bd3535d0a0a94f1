import Foundation
import Testing
import OAuthFlowTestSupport

/// The fenced code blocks of a Markdown file, read as CommonMark (§4.5) reads them, with every fence line that
/// would render otherwise than its author meant. The examples the documentation tests run come from here, so
/// what they run is what a reader sees: a block that renders as prose is not tested as code, and the reverse.
struct MarkdownFences {
    /// One fenced block: where it opens, its language (the info string) and its lines.
    struct Block {
        let file: String
        let line: Int
        let language: String
        let lines: [String]
    }

    /// A fence line: up to three spaces, then three or more backticks or tildes, then the rest of the line.
    struct Fence {
        let character: Character
        let length: Int
        /// What follows the run, trimmed: an opening fence's info string; nothing on a closing fence.
        let rest: String

        init?(_ line: String) {
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(indent)
            guard indent <= 3, let first = body.first, first == "`" || first == "~" else { return nil }
            let run = body.prefix { $0 == first }.count
            guard run >= 3 else { return nil }
            character = first
            length = run
            rest = body.dropFirst(run).trimmingCharacters(in: .whitespaces)
        }
    }

    let blocks: [Block]
    /// Each fence line that does not do what it looks like it does, as `FILE:LINE: why`.
    let problems: [String]

    /// An info string as these docs write them: one word naming the language (`swift`, `console`, `yaml`).
    static func isLanguage(_ text: Substring) -> Bool {
        text.allSatisfy { $0.isLetter || $0.isNumber || "+-_.".contains($0) }
    }

    init(_ text: String, file: String) {
        var blocks: [Block] = []
        var problems: [String] = []
        var open: (line: Int, fence: Fence, language: String, lines: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let number = index + 1
            let fence = Fence(line)
            if let current = open {
                if let fence, fence.character == current.fence.character, fence.length >= current.fence.length {
                    if fence.rest.isEmpty {
                        blocks.append(Block(file: file, line: current.line, language: current.language, lines: current.lines))
                        open = nil
                        continue
                    }
                    // CommonMark: a closing fence may be followed only by spaces; this line is code, and so is what follows.
                    problems.append(
                        "\(file):\(number): a closing fence followed by `\(fence.rest)` does not close the block opened at line "
                            + "\(current.line): what follows renders as code")
                }
                open?.lines.append(line)
            } else if let fence {
                if fence.character == "`", fence.rest.contains("`") {
                    // CommonMark: a backtick fence's info string holds no backtick, so this is a line of prose.
                    problems.append("\(file):\(number): `\(line)` is not a fence (a backtick after the backticks), nor readable prose")
                    continue
                }
                let words = fence.rest.split(whereSeparator: \.isWhitespace)
                if words.count > 1 || !(words.first.map(Self.isLanguage) ?? true) {
                    problems.append("\(file):\(number): the fence `\(line)` has text after its info string: write the language alone")
                }
                open = (number, fence, words.first.map(String.init) ?? "", [])
            }
        }
        if let open {
            problems.append("\(file):\(open.line): the fence opened here is never closed: the rest of the file renders as code")
        }
        self.blocks = blocks
        self.problems = problems
    }

    init(contentsOf file: String) throws {
        self.init(try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8), file: file)
    }

    /// The Markdown of the DocC catalogs, `Sources/<Module>/<Module>.docc/**/*.md` (scripts/docs.py builds them): their
    /// fences and examples are checked as README.md's and Docs/'s are.
    static var catalogArticles: [String] {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return modules.sorted().flatMap { module -> [String] in
            let catalog = "Sources/\(module)/\(module).docc"
            let files = FileManager.default.enumerator(atPath: repositoryRoot.appendingPathComponent(catalog).path)?.compactMap { $0 as? String } ?? []
            return files.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
    }

    /// The guide of Docs/ a catalog article is made from (scripts/docc-articles.py writes its name in the notice on the
    /// article's third line), or nil for an article written by hand.
    static func guide(ofArticleText text: String) -> String? {
        let lines = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard lines.count > 2, let match = lines[2].firstMatch(of: #/^<!-- Generated from `Docs/([^`]+)`/#) else { return nil }
        return String(match.output.1)
    }

    /// ``guide(ofArticleText:)`` of a file of the repository.
    static func guide(ofArticle file: String) -> String? {
        guard let text = try? String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8) else { return nil }
        return guide(ofArticleText: text)
    }

    /// The catalog articles written by hand: the landing pages and those not made from a guide (none is committed;
    /// DocCCatalogTests). A generated article's blocks are its guide's, so its examples are checked in the guide.
    static var handWrittenArticles: [String] {
        catalogArticles.filter { guide(ofArticle: $0) == nil }
    }
}

/// Every Markdown file of the repository's documentation has well-formed fences: one that renders otherwise than it
/// reads (as Docs/api-protection.md's `` ``` `oauthflow lint` `` did, turning the "Host code" heading into code) fails.
@Suite struct MarkdownFenceTests {
    /// README.md, every Docs/*.md (the generated rule catalog included) and the DocC catalogs' articles.
    static let files = ["README.md"] + ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Docs").path)) ?? [])
        .filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 } + MarkdownFences.catalogArticles

    @Test func everyFenceInTheDocsIsWellFormed() throws {
        #expect(Self.files.count > 10)
        for file in Self.files {
            let fences = try MarkdownFences(contentsOf: file)
            #expect(fences.problems.isEmpty, "\(fences.problems.joined(separator: "\n"))")
        }
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        /// The lines the problems are reported on.
        let lines: [Int]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Malformed(name: "a closing fence with trailing text", text: "```yaml\nid: x\n``` `oauthflow lint`\nchecks it.\n\n## Host code\n\n```swift\nlet a = 1\n```\n",
                  lines: [3, 8]),
        Malformed(name: "text after the info string", text: "```swift let a = 1\nprint(a)\n```\n", lines: [1]),
        Malformed(name: "an info string that is not a word", text: "```{swift}\nlet a = 1\n```\n", lines: [1]),
        Malformed(name: "an unclosed fence", text: "Run:\n\n```sh\nbash scripts/test.sh\n", lines: [3]),
        Malformed(name: "a fence that closes the wrong block", text: "````md\n```swift\nlet a = 1\n```\n", lines: [1]),
        Malformed(name: "a backtick in a backtick fence's info string", text: "Text\n``` `oauthflow lint`\n", lines: [2]),
    ])
    func aMalformedFenceIsReported(_ example: Malformed) {
        let fences = MarkdownFences(example.text, file: "x.md")
        #expect(fences.problems.map { $0.split(separator: ":")[1] } == example.lines.map { Substring("\($0)") }, "\(fences.problems)")
    }

    @Test func wellFormedFencesGiveTheirBlocks() {
        let fences = MarkdownFences("Intro\n\n```swift\nlet a = 1\n```\n\n~~~\n```yaml\n~~~\n\n  ```console\n  $ ls\n  ```  \n", file: "x.md")
        #expect(fences.problems.isEmpty, "\(fences.problems)")
        #expect(fences.blocks.map(\.language) == ["swift", "", "console"])
        #expect(fences.blocks.map(\.line) == [3, 7, 11])
        #expect(fences.blocks[1].lines == ["```yaml"], "a backtick line inside a tilde block is code")
    }
}
