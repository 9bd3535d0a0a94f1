import Foundation
import Testing
import OAuthFlowTestSupport

/// The `///` comments of Sources sit on the declarations they describe: a comment left behind when code moved
/// (an initializer's parameter list above a method, a type's summary above another type) fails here.
@Suite struct SourceDocCommentTests {
    /// One `///` block and the declaration under it (attributes skipped).
    struct DocComment {
        let place: String
        let lines: [String]
        let declaration: String

        /// The names `- Parameters:` lists (and `- Parameter NAME:`).
        var documentedParameters: [String] {
            var names: [String] = []
            var listIndent: Int?
            for line in lines {
                let indent = line.prefix { $0 == " " }.count
                let text = line.drop { $0 == " " }
                if text.hasPrefix("- Parameters:") {
                    listIndent = indent
                } else if text.hasPrefix("- Parameter "), let name = text.dropFirst(12).split(separator: ":").first {
                    names.append(String(name))
                } else if let list = listIndent, text.hasPrefix("- ") {
                    if indent <= list {
                        listIndent = nil
                    } else if let name = text.dropFirst(2).split(separator: ":").first, !name.contains(" ") {
                        names.append(String(name))
                    }
                }
            }
            return names
        }

        /// The labels and names of the declaration's parameters, or nil when it is not a function, initializer or subscript.
        var declaredParameters: Set<String>? {
            guard let keyword = declaration.firstMatch(of: #/^(?:@\w+(?:\([^)]*\))? )*(?:[a-z]+ )*?(?:func [^\s(<]+|init[?!]?|subscript)(?:<[^>]*>)?\(/#) else {
                return nil
            }
            var names: Set<String> = []
            var depth = 1
            var segment = ""
            var inString = false
            for character in declaration[keyword.range.upperBound...] {
                if character == "\"" { inString.toggle() }
                if inString {
                    continue
                }
                if "([{".contains(character) { depth += 1 }
                if ")]}".contains(character) { depth -= 1 }
                if depth == 0 || (depth == 1 && character == ",") {
                    if let head = segment.split(separator: ":", maxSplits: 1).first, segment.contains(":") {
                        names.formUnion(head.split(separator: " ").map(String.init))
                    }
                    segment = ""
                    if depth == 0 { break }
                    continue
                }
                if depth == 1 { segment.append(character) }
            }
            return names
        }
    }

    static func sourceFiles(under folder: String) -> [String] {
        let root = repositoryRoot.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") }.sorted().map { folder + "/" + $0 }
    }

    static func docComments(in file: String) throws -> [DocComment] {
        let lines = try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
        var comments: [DocComment] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("///") else {
                index += 1
                continue
            }
            let start = index
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("///") { index += 1 }
            var declaration = index
            while declaration < lines.count, lines[declaration].trimmingCharacters(in: .whitespaces).hasPrefix("@") { declaration += 1 }
            let text = lines[declaration..<min(lines.count, declaration + 20)].map { $0.trimmingCharacters(in: .whitespaces) }
            comments.append(DocComment(
                place: "\(file):\(start + 1)",
                lines: lines[start..<index].map { line in
                    let body = line.trimmingCharacters(in: .whitespaces).dropFirst(3)
                    return String(body.first == " " ? body.dropFirst() : body)
                },
                declaration: text.joined(separator: " ")))
        }
        return comments
    }

    /// A `- Parameters:` list names the parameters of the declaration under it.
    @Test func parameterListsDescribeTheDeclarationUnderThem() throws {
        var checked = 0
        for file in Self.sourceFiles(under: "Sources") {
            for comment in try Self.docComments(in: file) where !comment.documentedParameters.isEmpty {
                let documented = comment.documentedParameters
                guard let declared = comment.declaredParameters else {
                    Issue.record("\(comment.place): documents parameters (\(documented.joined(separator: ", "))) of `\(comment.declaration.prefix(80))`")
                    continue
                }
                let strangers = documented.filter { !declared.contains($0) }
                #expect(strangers.isEmpty, "\(comment.place): `\(comment.declaration.prefix(80))` has no parameter \(strangers.joined(separator: ", "))")
                checked += 1
            }
        }
        #expect(checked > 50)
    }

    /// Each public type of the core library has a summary of its own (one stranded above another type leaves it without).
    @Test func everyTopLevelPublicTypeOfTheCoreHasADocComment() throws {
        var checked = 0
        for file in Self.sourceFiles(under: "Sources/OAuthFlow") {
            let lines = try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            // A regex literal is parsed each time it is evaluated: only lines that can match reach it.
            for (index, line) in lines.enumerated()
            where line.hasPrefix("public ") && line.firstMatch(of: #/^public (?:final |indirect )?(?:struct|enum|class|actor|protocol) /#) != nil {
                let above = lines[..<index].last { !$0.hasPrefix("@") } ?? ""
                #expect(above.hasPrefix("///"), "\(file):\(index + 1): `\(line.prefix(60))` has no doc comment")
                checked += 1
            }
        }
        #expect(checked > 50)
    }

    @Test func theCheckReadsParameterListsAndSignatures() {
        let comment = DocComment(
            place: "x.swift:1", lines: ["Makes one.", "", "- Parameters:", "  - provider: The provider.", "  - logger: Where lines go.", "- Returns: It."],
            declaration: #"public init( provider: Provider, transport: any HTTPTransport = T(), logger: Logger = Logger(label: "a,b", factory: { _ in H() }) ) {"#)
        #expect(comment.documentedParameters == ["provider", "logger"])
        #expect(comment.declaredParameters == ["provider", "transport", "logger"])
        let method = DocComment(place: "x.swift:1", lines: [], declaration: "public func accessRequest(authorization: [String], for path: String) -> A {")
        #expect(method.declaredParameters == ["authorization", "for", "path"])
        #expect(DocComment(place: "x.swift:1", lines: [], declaration: "public enum TransportRequest.Method: String {").declaredParameters == nil)
    }
}
