import Foundation
import Testing
import OAuthFlowTestSupport

/// The DocC catalogs (`Sources/<Module>/<Module>.docc`, built by scripts/docs.py with warnings as errors): one per
/// library product, each Docs/ page an article of the core's catalog that holds the page's prose (made from it by
/// scripts/docc-articles.py in a staged copy of the catalog, never committed), and no article citing a file that is gone.
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

    /// The catalogs as scripts/docs.py converts them: copies staged by `scripts/docc-articles.py --into`, with the
    /// articles the guides make written in. Returns the staging directory and each staged article's text, by its path
    /// from there (`OAuthFlow.docc/TokenStorageAndRefresh.md`).
    static func staged() async throws -> (TemporaryDirectory, [String: String]) {
        let directory = try TemporaryDirectory()
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "scripts/docc-articles.py", "--into", directory.url.path])
        #expect(result.status == 0, "scripts/docc-articles.py failed: \(result.stderr)")
        var articles: [String: String] = [:]
        for case let file as String in FileManager.default.enumerator(atPath: directory.url.path) ?? .init() where file.hasSuffix(".md") {
            articles[file] = try String(contentsOf: directory.url.appendingPathComponent(file), encoding: .utf8)
        }
        return (directory, articles)
    }

    /// The articles are made when documentation is built: no catalog in Sources/ holds one.
    @Test func noGeneratedArticleIsCommitted() throws {
        let committed = MarkdownFences.catalogArticles.filter { MarkdownFences.guide(ofArticle: $0) != nil }
        #expect(committed.isEmpty, "generated articles committed (remove them; scripts/docs.py makes them): \(committed)")
    }

    /// Each Docs/ page is an article of the core's staged catalog, made from it.
    @Test func everyDocsPageHasAnArticle() async throws {
        let pages = try Self.pages
        #expect(pages.count > 10)
        let (directory, articles) = try await Self.staged()
        defer { directory.cleanUp() }
        let generated = Set(articles.filter { $0.key.hasPrefix("OAuthFlow.docc/") }.values.compactMap(MarkdownFences.guide(ofArticleText:)))
        for page in pages {
            #expect(generated.contains(page), "no article of \(Self.core) is made from Docs/\(page): add it to scripts/docc-articles.py")
        }
    }

    /// An article made from a guide holds the guide's prose: its title, its fenced blocks as they are (so the examples
    /// DocExampleTests checks in the guide are the article's), and every line of its prose that holds no link or
    /// footnote (those are rewritten for DocC).
    @Test func generatedArticlesHoldTheirGuidesProse() async throws {
        let pageCount = try Self.pages.count
        let (directory, articles) = try await Self.staged()
        defer { directory.cleanUp() }
        var checked = 0
        for (article, articleText) in articles.sorted(by: { $0.key < $1.key }) {
            guard let page = MarkdownFences.guide(ofArticleText: articleText) else { continue }
            let guide = "Docs/\(page)"
            let guideText = try Self.text(guide)
            // Backticks and backslashes aside: a span written with two backticks is rewritten with escaped ones.
            func read(_ line: String) -> String { line.filter { $0 != "`" && $0 != "\\" } }
            let guideLines = guideText.components(separatedBy: "\n"), articleLines = Set(articleText.components(separatedBy: "\n").map(read))
            #expect(articleText.hasPrefix(guideLines[0] + "\n"), "\(article) does not open with \(guide)'s title")

            let guideBlocks = try MarkdownFences(contentsOf: guide).blocks
            let articleBlocks = MarkdownFences(articleText, file: article).blocks
            #expect(articleBlocks.map(\.language) == guideBlocks.map(\.language) && articleBlocks.map(\.lines) == guideBlocks.map(\.lines),
                    "\(article)'s fenced blocks are not \(guide)'s")

            // The guide's prose lines: out of its blocks (each block is its opening fence, its lines and its closing fence).
            var code = Set<Int>()
            for block in guideBlocks { code.formUnion(block.line...(block.line + block.lines.count + 1)) }
            for (index, line) in guideLines.enumerated().dropFirst() where !code.contains(index + 1) {
                if line.contains("](") || line.contains("``") || line.contains("[^") { continue }   // links and footnotes are rewritten
                #expect(articleLines.contains(read(line)), "\(article) lacks \(guide):\(index + 1)")
            }
            checked += 1
        }
        #expect(checked >= pageCount, "every guide is an article at least once")
    }

    /// A landing page that names a guide of Docs/ has that guide's article in its staged catalog, so its readers get
    /// the prose.
    @Test func landingPagesHoldTheGuidesTheyName() async throws {
        let (directory, articles) = try await Self.staged()
        defer { directory.cleanUp() }
        for product in try Self.products() {
            let landing = try Self.text("Sources/\(product)/\(product).docc/\(product).md")
            let held = Set(articles.filter { $0.key.hasPrefix("\(product).docc/") }.values.compactMap(MarkdownFences.guide(ofArticleText:)))
            for match in landing.matches(of: #/`Docs/([^`\s]+\.md)`/#) {
                #expect(held.contains(String(match.output.1)), "\(product)'s landing page names Docs/\(match.output.1), whose article its catalog lacks")
            }
        }
    }

    /// The repository paths the hand-written articles cite exist.
    @Test func everyPathAnArticleCitesExists() throws {
        var checked = 0
        for article in MarkdownFences.catalogArticles {
            let text = try Self.text(article)
            for match in text.matches(of: #/`((?:Docs|Sources|Tests|providers|scripts|Examples)/[^`\s]+)`/#) {
                let path = String(match.output.1)
                #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(path).path), "\(article) cites `\(path)`, which does not exist")
                checked += 1
            }
        }
        #expect(checked > 16)
    }
}
