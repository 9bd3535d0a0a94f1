import Foundation
import Testing
import OAuthFlowTestSupport

/// The DocC catalogs (`Sources/<Module>/<Module>.docc`, built by scripts/docs.py with warnings as errors): one per
/// library product, each Docs/ page an article of the core's catalog that holds the page's prose (generated from it by
/// scripts/docc-articles.py, whose `--check` the test command runs), and no article citing a file that is gone.
/// Their Swift blocks are checked with README.md's and Docs/'s (`DocExampleTests`, `MarkdownFenceTests`).
@Suite struct DocCCatalogTests {
    static let core = "Sources/OAuthFlow/OAuthFlow.docc"

    static func text(_ file: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8)
    }

    /// The `.library` products of Package.swift.
    static func products() throws -> [String] {
        try text("Package.swift").matches(of: #/\.library\(name:\s*"([^"]+)"/#).map { String($0.output.1) }.sorted()
    }

    @Test func everyProductHasACatalogWithALandingPage() throws {
        let products = try Self.products()
        #expect(products.count >= 8)
        for product in products {
            let landing = "Sources/\(product)/\(product).docc/\(product).md"
            let first = try Self.text(landing).split(separator: "\n").first.map(String.init)
            #expect(first == "# ``\(product)``", "\(landing) must open with the module's symbol link")
            #expect(try Self.text(landing).contains("\n## Topics\n"), "\(landing) has no Topics")
        }
        #expect(MarkdownFences.catalogArticles.count > products.count, "the catalogs' articles are found and checked")
    }

    static var pages: [String] {
        get throws {
            try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Docs").path)
                .filter { $0.hasSuffix(".md") }.sorted()
        }
    }

    /// Each Docs/ page is an article of the core's catalog, generated from it: the article names it as a path.
    @Test func everyDocsPageHasAnArticle() throws {
        let pages = try Self.pages
        #expect(pages.count > 10)
        let core = MarkdownFences.catalogArticles.filter { $0.hasPrefix(Self.core + "/") }
        let articles = try core.map(Self.text).joined(separator: "\n")
        let generated = Set(core.compactMap(MarkdownFences.guide(ofArticle:)))
        for page in pages {
            #expect(articles.contains("`Docs/\(page)`"), "no article of \(Self.core) points to Docs/\(page)")
            #expect(generated.contains(page), "no article of \(Self.core) is made from Docs/\(page): add it to scripts/docc-articles.py")
        }
    }

    /// An article made from a guide holds the guide's prose: its title, its fenced blocks as they are (so the examples
    /// DocExampleTests checks in the guide are the article's), and every line of its prose that holds no link or
    /// footnote (those are rewritten for DocC). A guide edited without `python3 scripts/docc-articles.py` fails here.
    @Test func generatedArticlesHoldTheirGuidesProse() throws {
        let pageCount = try Self.pages.count
        var checked = 0
        for article in MarkdownFences.catalogArticles {
            guard let page = MarkdownFences.guide(ofArticle: article) else { continue }
            let guide = "Docs/\(page)"
            #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(guide).path), "\(article) is made from \(guide), which is gone")
            guard FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(guide).path) else { continue }
            let guideText = try Self.text(guide), articleText = try Self.text(article)
            // Backticks and backslashes aside: a span written with two backticks is rewritten with escaped ones.
            func read(_ line: String) -> String { line.filter { $0 != "`" && $0 != "\\" } }
            let guideLines = guideText.components(separatedBy: "\n"), articleLines = Set(articleText.components(separatedBy: "\n").map(read))
            #expect(articleText.hasPrefix(guideLines[0] + "\n"), "\(article) does not open with \(guide)'s title")

            let guideBlocks = try MarkdownFences(contentsOf: guide).blocks, articleBlocks = try MarkdownFences(contentsOf: article).blocks
            #expect(articleBlocks.map(\.language) == guideBlocks.map(\.language) && articleBlocks.map(\.lines) == guideBlocks.map(\.lines),
                    "\(article)'s fenced blocks are not \(guide)'s: run `python3 scripts/docc-articles.py`")

            // The guide's prose lines: out of its blocks (each block is its opening fence, its lines and its closing fence).
            var code = Set<Int>()
            for block in guideBlocks { code.formUnion(block.line...(block.line + block.lines.count + 1)) }
            for (index, line) in guideLines.enumerated().dropFirst() where !code.contains(index + 1) {
                if line.contains("](") || line.contains("``") || line.contains("[^") { continue }   // links and footnotes are rewritten
                let held = articleLines.contains(read(line))
                #expect(held, "\(article) lacks \(guide):\(index + 1): run `python3 scripts/docc-articles.py`")
            }
            checked += 1
        }
        #expect(checked >= pageCount, "every guide is an article at least once")
    }

    /// A landing page that names a guide of Docs/ has that guide's article in its catalog, so its readers get the prose.
    @Test func landingPagesHoldTheGuidesTheyName() throws {
        for product in try Self.products() {
            let catalog = "Sources/\(product)/\(product).docc"
            let landing = try Self.text("\(catalog)/\(product).md")
            let held = Set(MarkdownFences.catalogArticles.filter { $0.hasPrefix(catalog + "/") }.compactMap(MarkdownFences.guide(ofArticle:)))
            for match in landing.matches(of: #/`Docs/([^`\s]+\.md)`/#) {
                #expect(held.contains(String(match.output.1)), "\(catalog)/\(product).md names Docs/\(match.output.1), whose article \(catalog) lacks")
            }
        }
    }

    /// The repository paths the articles cite exist: all those of a hand-written article, and the guide a generated one
    /// names (the rest of it is its guide's, which may name another repository's paths, as mcp.md does the SDK's).
    @Test func everyPathAnArticleCitesExists() throws {
        var checked = 0
        for article in MarkdownFences.catalogArticles {
            let text = try Self.text(article)
            let cited = MarkdownFences.guide(ofArticle: article) == nil ? text : text.split(separator: "\n").prefix(2).joined(separator: "\n")
            for match in cited.matches(of: #/`((?:Docs|Sources|Tests|providers|scripts|Examples)/[^`\s]+)`/#) {
                let path = String(match.output.1)
                #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(path).path), "\(article) cites `\(path)`, which does not exist")
                checked += 1
            }
        }
        #expect(checked > 16)
    }
}
