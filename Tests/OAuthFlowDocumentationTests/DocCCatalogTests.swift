import Foundation
import Testing
import OAuthFlowTestSupport

/// The DocC catalogs (`Sources/<Module>/<Module>.docc`, built by scripts/docs.py with warnings as errors): one per
/// library product, each Docs/ page reachable from the core's catalog, and no article citing a file that is gone.
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

    /// Each Docs/ page is an article of the core's catalog, or linked from one: an article names it as a path.
    @Test func everyDocsPageHasAnArticle() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Docs").path)
            .filter { $0.hasSuffix(".md") }.sorted()
        #expect(pages.count > 10)
        let articles = try MarkdownFences.catalogArticles.filter { $0.hasPrefix(Self.core + "/") }.map(Self.text).joined(separator: "\n")
        for page in pages {
            #expect(articles.contains("`Docs/\(page)`"), "no article of \(Self.core) points to Docs/\(page)")
        }
    }

    /// The repository paths the articles cite exist.
    @Test func everyPathAnArticleCitesExists() throws {
        var checked = 0
        for article in MarkdownFences.catalogArticles {
            for match in try Self.text(article).matches(of: #/`((?:Docs|Sources|Tests|providers|scripts|Examples)/[^`\s]+)`/#) {
                let path = String(match.output.1)
                #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(path).path), "\(article) cites `\(path)`, which does not exist")
                checked += 1
            }
        }
        #expect(checked > 16)
    }
}
