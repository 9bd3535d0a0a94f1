import Foundation
import Testing
import OAuthFlowTestSupport

/// Docs/design.md against the code: its module table names every module, its layer table every folder of the
/// core in an order in which every dependency points down, the types either table names are where it says,
/// the paths it cites exist inside the repository, and every error domain is listed.
@Suite struct DesignDocTests {
    static let page = "Docs/design.md"

    /// One row of a Markdown table: its cells, trimmed.
    typealias Row = [String]

    /// The rows of the table whose header's first cell is `first`.
    static func table(_ first: String) throws -> [Row] {
        let lines = try String(contentsOf: repositoryRoot.appendingPathComponent(page), encoding: .utf8).components(separatedBy: "\n")
        func cells(_ line: String) -> Row {
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
        guard let header = lines.firstIndex(where: { $0.hasPrefix("|") && cells($0).first == first }) else { return [] }
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map(cells)
    }

    /// The spans a cell quotes in backticks.
    static func quoted(_ cell: String) -> [String] {
        cell.matches(of: #/`([^`]+)`/#).map { String($0.output.1) }
    }

    /// A quoted span that names a type, or a type's member (`Provider.discovered(with:)`): the type and the member.
    static func typeName(_ span: String) -> (type: String, member: String?)? {
        guard let match = span.wholeMatch(of: #/([A-Z][A-Za-z0-9]*)(?:\.([a-z][A-Za-z0-9]*)(?:\(.*\))?)?/#) else { return nil }
        return (String(match.output.1), match.output.2.map(String.init))
    }

    /// The Swift files under `folder` (relative to the repository), each with its text, comments and string literals removed.
    static func sources(under folder: String) throws -> [(path: String, text: String)] {
        let root = repositoryRoot.appendingPathComponent(folder)
        let files = (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
        return try files.sorted().map { file in
            var text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            text.replace(#/\/\*[\s\S]*?\*\//#, with: " ")
            text.replace(#/"""[\s\S]*?"""/#, with: "\"\"")
            text.replace(#/"(?:\\.|[^"\\\n])*"/#, with: "\"\"")
            text.replace(#/\/\/[^\n]*/#, with: " ")
            return (file, text)
        }
    }

    /// The names a source declares: every type, or only those at the top level (unindented).
    static func declaredTypes(in text: String, topLevelOnly: Bool) -> Set<String> {
        let declarations = text.matches(
            of: #/^([ \t]*)(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|open|final|indirect|nonisolated)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)/#
                .anchorsMatchLineEndings())
        return Set(declarations.filter { !topLevelOnly || $0.output.1.isEmpty }.map { String($0.output.2) })
    }

    static func identifiers(in text: String) -> Set<String> {
        Set(text.matches(of: #/\b[A-Z]\w*\b/#).map { String($0.output) })
    }

    /// The layers, top first, from the table.
    static func layers() throws -> [String] {
        try table("Layer").compactMap { row in row.first.flatMap(quoted)?.first.map { String($0.dropLast()) } }
    }

    @Test func theModuleTableNamesEveryModule() throws {
        let modules = try Self.table("Module").compactMap { $0.first.flatMap(Self.quoted)?.first }
        let folders = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Sources").path).filter { !$0.hasPrefix(".") }
        #expect(Set(modules) == Set(folders), "the module table: \(modules); Sources: \(folders.sorted())")
    }

    @Test func theLayerTableNamesEveryFolderOfTheCore() throws {
        let core = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Sources/OAuthFlow").path)
            .filter { folder in (try? Self.sources(under: "Sources/OAuthFlow/\(folder)").isEmpty == false) ?? false }
        let layers = try Self.layers()
        #expect(Set(layers) == Set(core), "the layer table: \(layers); Sources/OAuthFlow: \(core.sorted())")
        #expect(layers.count == Set(layers).count, "a layer listed twice: \(layers)")
    }

    /// A folder names types of the layers below it, never of one above (a type belongs to the folder that declares it
    /// at the top level): the order of the table is an order of the code.
    @Test func everyDependencyOfALayerPointsDown() throws {
        let layers = try Self.layers()
        var owner: [String: String] = [:]
        var files: [(layer: String, path: String, text: String)] = []
        for layer in layers {
            for source in try Self.sources(under: "Sources/OAuthFlow/\(layer)") {
                for name in Self.declaredTypes(in: source.text, topLevelOnly: true) where owner[name] == nil { owner[name] = layer }
                files.append((layer, "Sources/OAuthFlow/\(layer)/\(source.path)", source.text))
            }
        }
        #expect(owner.count > 100)
        for file in files {
            let rank = layers.firstIndex(of: file.layer) ?? 0
            for name in Self.identifiers(in: file.text).sorted() {
                guard let other = owner[name], let otherRank = layers.firstIndex(of: other), otherRank < rank else { continue }
                Issue.record("\(file.path) names \(name), of \(other)/, which the design lists above \(file.layer)/")
            }
        }
    }

    /// Each type a layer's row names is declared in that layer or one below; a member it names is in that layer.
    @Test func theLayerTableNamesTypesWhereTheyAre() throws {
        let layers = try Self.layers()
        var declared: [String: Set<String>] = [:]
        var texts: [String: String] = [:]
        for layer in layers {
            let sources = try Self.sources(under: "Sources/OAuthFlow/\(layer)")
            declared[layer] = sources.reduce(into: Set<String>()) { $0.formUnion(Self.declaredTypes(in: $1.text, topLevelOnly: false)) }
            texts[layer] = sources.map(\.text).joined(separator: "\n")
        }
        var checked = 0
        for row in try Self.table("Layer") where row.count == 3 {
            let layer = String((Self.quoted(row[0]).first ?? "").dropLast())
            let rank = layers.firstIndex(of: layer) ?? 0
            for span in (Self.quoted(row[1]) + Self.quoted(row[2])) {
                guard let name = Self.typeName(span) else { continue }
                let here = layers[rank...].contains { declared[$0]?.contains(name.type) == true }
                #expect(here, "\(Self.page): the \(layer)/ row names \(name.type), which neither \(layer)/ nor a layer below declares")
                if let member = name.member {
                    #expect(texts[layer]?.contains(member) == true, "\(Self.page): the \(layer)/ row names `\(span)`, but \(layer)/ has no \(member)")
                }
                checked += 1
            }
        }
        #expect(checked > 60)
    }

    /// Each type a module's row names is one that module's sources declare or use.
    @Test func theModuleTableNamesTypesTheModulesHave() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Sources").path)
        var checked = 0
        for row in try Self.table("Module") where row.count == 3 {
            guard let module = Self.quoted(row[0]).first, modules.contains(module) else { continue }
            let text = try Self.sources(under: "Sources/\(module)").map(\.text).joined(separator: "\n")
            let named = Self.identifiers(in: text)
            for span in Self.quoted(row[2]) {
                guard let name = Self.typeName(span), !modules.contains(name.type) else { continue }
                let has = named.contains(name.type)
                #expect(has, "\(Self.page): the \(module) row names \(name.type), which \(module) does not have")
                if let member = name.member {
                    #expect(text.contains(member), "\(Self.page): the \(module) row names `\(span)`, but \(module) has no \(member)")
                }
                checked += 1
            }
        }
        #expect(checked > 20)
    }

    /// The page cites files of this repository only, and they exist.
    @Test func everyPathThePageCitesIsInTheRepository() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.page), encoding: .utf8)
        #expect(!text.contains("../"), "\(Self.page) cites a path outside the repository")
        let roots = ["Sources/", "Tests/", "Docs/", "scripts/", "providers/", "Examples/", "Benchmarks/", ".ci/"]
        var checked = 0
        for span in Self.quoted(text) where roots.contains(where: span.hasPrefix) {
            #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(span).path), "\(Self.page) cites `\(span)`, which does not exist")
            checked += 1
        }
        #expect(checked > 5)
    }

    /// Every error domain (a type with `ErrorCode` members) is in the page's list of library failures.
    @Test func theErrorsSectionListsEveryErrorDomain() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.page), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## ").first { $0.hasPrefix("Errors\n") })
        var domains: Set<String> = []
        for source in try Self.sources(under: "Sources") {
            domains.formUnion(source.text.matches(of: #/extension ErrorCode where Domain == ([A-Z][\w.]*)/#).map { String($0.output.1) })
        }
        #expect(domains.count > 5)
        for domain in domains.sorted() {
            #expect(section.contains("`\(domain)`"), "\(Self.page), Errors, does not list \(domain)")
        }
    }
}
