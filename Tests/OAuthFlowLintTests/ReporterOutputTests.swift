import Foundation
@testable import OAuthFlow
import Testing
@testable import OAuthFlowLint

/// The reporters write each diagnostic in place (Docs/benchmarks.md, "What the measurements decided"): no line
/// interpolated and escaped whole, no `JSONEncoder`, no Foundation `replacingOccurrences`. Each writes what the plain
/// formulation it replaced wrote, byte for byte, over texts a hostile descriptor or file name can hold.
@Suite struct ReporterOutputTests {
    /// Paths, messages and rule ids as a descriptor's values and names can make them: controls, line breaks,
    /// bidirectional and invisible characters, combining marks (alone and after `%` or a line break), text in
    /// several scripts, the characters each format escapes.
    static let texts = [
        "providers/a.yaml", "dir with space/ü.yaml", "a:b,c%d.yaml", "tab\there", "cr\rlf\n", "\r\n", "esc\u{1B}[31mred",
        "bidi\u{202E}txt", "zero\u{200B}width", "nul\u{0}x", "del\u{7F}", "c1\u{85}\u{9F}", "soft\u{AD}hyphen",
        "use `127.0.0.1` (RFC 8252 §8.3)", "“quoted” — dash", "e\u{301}", "%\u{301}", "\n\u{301}", "\r\u{301}",
        ",\u{301}:\u{20DD}", "👩‍💻 emoji", "tag \u{E0041}", "back\\slash \"quote\"", "slash/", "line\u{2028}sep",
        "\u{FEFF}bom", "한국어 테넌트", "\u{600}.yaml", "\u{8}\u{C}\u{B}\u{1F}", "", "50% unused\nsecond line",
    ]

    static let diagnostics: [Diagnostic] = texts.indices.map { index in
        let count = texts.count
        return Diagnostic(
            location: SourceLocation(path: texts[index], line: 1 + index * 37, column: 1 + index * 1009), severity: [.error, .warning, .info][index % 3],
            ruleID: index % 4 == 0 ? "unknown_key" : texts[(index + 7) % count], message: texts[(index + 3) % count] + " " + texts[(index + 11) % count])
    }

    @Test(arguments: [0, 1, 9, 10, 99, 100, 101, 1009, 65_535, 1_000_000, Int(Int32.max), Int.max, -1, -10, Int.min])
    func numbersAreWrittenAsStringWritesThem(value: Int) {
        var bytes: [UInt8] = []
        bytes.append(decimal: value)
        #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }

    /// A text is appended as its own bytes exactly when `TerminalText.escaped` leaves it as it is: every scalar alone
    /// between printable ASCII (so that each is met both in the eight-byte step and byte by byte), and runs of them.
    @Test func terminalTextIsAppendedAsItIsEscaped() {
        func check(_ text: String) -> Bool {
            var bytes: [UInt8] = []
            bytes.append(terminalText: text)
            return String(decoding: bytes, as: UTF8.self) == TerminalText.escaped(text)
        }
        let scalars = (0...0x10FFFF).compactMap(Unicode.Scalar.init)
        let alone = scalars.filter { $0.value < 0x3400 || (0xD800...0x1_0400).contains($0.value) || $0.value >= 0xE0000 || $0.value % 97 == 0 }
        for (index, scalar) in alone.enumerated() {
            let padding = String(repeating: "p", count: index % 11)
            #expect(check(padding + String(scalar) + "printable ascii"), "U+\(String(scalar.value, radix: 16))")
        }
        for start in stride(from: 0, to: scalars.count, by: 512) {
            var run = String.UnicodeScalarView()
            run.append(contentsOf: scalars[start..<min(start + 512, scalars.count)])
            #expect(check(String(run)))
        }
        for text in Self.texts { #expect(check(text), "\(text.debugDescription)") }
        #expect(check("") && check("exactly8") && check("sixteen bytes ok") && check("seven b\u{7F}"))
    }

    @Test func textIsEachDescriptionEscapedWhole() {
        func line(_ diagnostic: Diagnostic) -> String {
            TerminalText.escaped("\(diagnostic.location): \(diagnostic.severity.rawValue): \(diagnostic.message) [\(diagnostic.ruleID)]")
        }
        #expect(TextReporter().report(Self.diagnostics) == Self.diagnostics.map { line($0) + "\n" }.joined())
        for diagnostic in Self.diagnostics {
            #expect(diagnostic.description == line(diagnostic), "\(diagnostic.message.debugDescription)")
        }
        #expect(TextReporter().report([]) == "")
        // The bytes the CLI writes are the report's, in every format.
        for format in ReportFormat.allCases {
            #expect(String(decoding: format.partBytes(Self.diagnostics, following: true), as: UTF8.self) == format.reporter.part(Self.diagnostics, following: true))
        }
    }

    /// What `JSONEncoder` writes for the array, as the reporter wrote it before.
    private func encoded(_ diagnostics: [Diagnostic]) throws -> String {
        struct Entry: Encodable {
            let path: String, line: Int, column: Int, severity: String, rule_id: String, message: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let entries = diagnostics.map {
            Entry(
                path: $0.location.path, line: $0.location.line, column: $0.location.column, severity: $0.severity.rawValue,
                rule_id: $0.ruleID, message: $0.message)
        }
        return String(decoding: try encoder.encode(entries), as: UTF8.self) + "\n"
    }

    @Test func jsonIsWhatTheEncoderWrites() throws {
        let reporter = JSONReporter()
        #expect(reporter.report(Self.diagnostics) == (try encoded(Self.diagnostics)))
        for cut in [0, 1, 9, Self.diagnostics.count] {
            let first = Array(Self.diagnostics[..<cut]), second = Array(Self.diagnostics[cut...])
            let joined =
                reporter.part(first, following: false) + reporter.part(second, following: !first.isEmpty) + reporter.end(afterAny: true)
            #expect(joined == (try encoded(Self.diagnostics)), "cut at \(cut)")
        }
    }

    /// Every Unicode scalar, in messages of 2,048 scalars each, comes out as the encoder writes it.
    @Test func jsonEscapesEveryScalarAsTheEncoderDoes() throws {
        let scalars = (0...0x10FFFF).compactMap(Unicode.Scalar.init)
        let diagnostics = stride(from: 0, to: scalars.count, by: 2048).map { start in
            var message = String.UnicodeScalarView()
            message.append(contentsOf: scalars[start..<min(start + 2048, scalars.count)])
            return Diagnostic(
                location: SourceLocation(path: "p\(start).yaml", line: 1, column: 1), severity: .warning, ruleID: "r", message: String(message))
        }
        #expect(JSONReporter().report(diagnostics) == (try encoded(diagnostics)))
    }

    /// Where Foundation's `replacingOccurrences` escaped every `%`, CR and LF (and `:` and `,` in properties), that
    /// is where no combining mark follows one, the annotations are what it wrote.
    @Test func githubAnnotationsAreWhatTheReplacementsWrote() {
        func data(_ value: String) -> String {
            let escaped = value.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
                .replacingOccurrences(of: "\n", with: "%0A")
            // Every other control character as its UTF-8 bytes, percent-encoded (issue 61, item 14).
            var out = ""
            for scalar in escaped.unicodeScalars {
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        func property(_ value: String) -> String {
            data(value).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
        }
        // No escaped character followed by one beyond ASCII, which Foundation's search may take as joined to it.
        func stands(alone text: String) -> Bool {
            let scalars = Array(text.unicodeScalars)
            return scalars.indices.dropLast().allSatisfy { !"%\r\n:,".unicodeScalars.contains(scalars[$0]) || scalars[$0 + 1].isASCII }
        }
        let comparable = Self.diagnostics.filter { stands(alone: $0.location.path) && stands(alone: $0.ruleID) && stands(alone: $0.message) }
        #expect(comparable.count > 15)
        for diagnostic in comparable {
            let reference =
                "::\(diagnostic.severity == .info ? "notice" : diagnostic.severity.rawValue) file=\(property(diagnostic.location.path)),line=\(diagnostic.location.line),col=\(diagnostic.location.column),title=\(property(diagnostic.ruleID))::\(data(diagnostic.message))\n"
            let report = GitHubReporter().report([diagnostic])
            #expect(report == reference, "\(report.debugDescription) against \(reference.debugDescription)")
        }
    }

    /// A line break, `%`, `:` or `,` that a combining mark follows is escaped too: Foundation's canonical-equivalence
    /// search left them as they were, and a raw line break let a quoted descriptor value start a workflow command.
    @Test func githubEscapesWhatACombiningMarkFollows() {
        let forged = Diagnostic(
            location: SourceLocation(path: "a,\u{301}b:\u{301}.yaml", line: 2, column: 3), severity: .error, ruleID: "scope_syntax",
            message: "scope `x\n\u{301}::error file=forged.yaml::owned` holds `\\n`; 100%\u{301}\r\u{301}")
        let report = GitHubReporter().report([forged])
        #expect(report.utf8.filter { $0 == UInt8(ascii: "\n") }.count == 1 && report.hasSuffix("\n"), "\(report.debugDescription)")
        #expect(report.utf8.contains(UInt8(ascii: "\r")) == false)
        #expect(
            report
                == "::error file=a%2C\u{301}b%3A\u{301}.yaml,line=2,col=3,title=scope_syntax::scope `x%0A\u{301}::error file=forged.yaml::owned` holds `\\n`; 100%25\u{301}%0D\u{301}\n"
        )
    }
}

extension ReporterOutputTests {
    /// A descriptor's key or value with an escape sequence (ESC, BEL, the one-byte CSI U+009B, DEL) reaches the CI log
    /// percent-encoded, never raw: GitHub decodes only `%25`, `%0D`, `%0A`, `%3A` and `%2C`, so the log shows the rest.
    @Test func githubEncodesEveryControlCharacter() {
        let hostile = Diagnostic(
            location: SourceLocation(path: "p\u{1B}[31m.yaml", line: 1, column: 1), severity: .error, ruleID: "unknown_key",
            message: "unknown key `x\u{1B}]0;owned\u{07}\u{9B}2J\u{7F}\t` beside `§`")
        let report = GitHubReporter().report([hostile])
        #expect(!report.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, "\(report.debugDescription)")
        #expect(
            report
                == "::error file=p%1B[31m.yaml,line=1,col=1,title=unknown_key::unknown key `x%1B]0;owned%07%C2%9B2J%7F%09` beside `§`\n",
            "\(report.debugDescription)")
    }
}

@Suite struct LintFileStemTests {
    /// The file name without `.yaml` or `.yml`, judged by bytes where an ASCII byte stands before the suffix: the
    /// same as comparing characters (`hasSuffix`), as it was worked out before.
    @Test(arguments: [
        "a.yaml", "dir/a.yml", ".yaml", "a.yml.yaml", "a.yaml.yml", "x\u{600}.yaml", "\u{600}.yml", "é.yaml", "e\u{301}.yaml", "a.YAML",
        "a.yaml.txt", "dir.yaml/b", "yaml", "a.yam", "a\r.yaml", "👩‍💻.yaml", "a\u{301}.yml.yaml", "dir/sub/.yml",
    ])
    func stemIsTheNameWithoutItsSuffix(path: String) {
        var name = String(path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path[...])
        for suffix in [".yaml", ".yml"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        let file = LintFile(document: DescriptorDocument.parse(Data(Examples.valid.utf8), path: path))
        #expect(file.stem == name)
    }
}

@Suite struct VariableUseTests {
    /// A variable used only outside URLs (a userinfo header, an extra parameter, an app redirect scheme) is used; one
    /// used nowhere is reported, however many the descriptor declares (a dozen or fewer are compared one by one, more
    /// are hashed); a URL's undeclared placeholder is reported either way.
    @Test(arguments: [3, 20])
    func usesAreFoundWhereverVariablesStand(declared count: Int) {
        let extra = (0..<count).map { "  spare\($0):\n    description: Spare\n    required: false\n" }.joined()
        let text =
            Examples.header
            + "issuer: https://{tenant}.example.com\nvariables:\n  tenant:\n    description: Tenant\n  region:\n    description: Region\n    required: false\n"
            + "  app:\n    description: App\n    required: false\n  lonely:\n    description: Nobody's\n    required: false\n" + extra
            + "endpoints:\n  authorization: https://{tenant}.example.com/authorize\n  token: https://{tenant}.example.com/{nowhere}/token\n"
            + "authorization:\n  extra_params:\n    region: '{region}'\nredirect:\n  private_use_scheme: 'com.example.{app}'\n"
        let diagnostics = Linter().lint(text: text, path: "example.yaml")
        let unused = diagnostics.filter { $0.ruleID == "unused_variable" }.map(\.message)
        // In file order, as every report is.
        let expected = (["lonely"] + (0..<count).map { "spare\($0)" }).map { "variable `\($0)` is declared but nothing uses `{\($0)}`" }
        #expect(unused == expected, "\(diagnostics)")
        let undeclared = diagnostics.filter { $0.ruleID == "undeclared_variable" }
        #expect(undeclared.count == 1 && undeclared.first?.message.hasPrefix("`{nowhere}` is used in `endpoints.token`") == true, "\(undeclared)")
    }
}

@Suite struct ParameterPartsTests {
    /// The walk over characters that cut every value before values without a `{` byte took a shortcut.
    private func walked(_ value: String) -> [ProviderDescriptor.ParameterPart] {
        func isVariableCharacter(_ character: Character) -> Bool { character.isASCII && (character.isLowercase || character.isNumber || character == "_") }
        var parts: [ProviderDescriptor.ParameterPart] = []
        var rest = Substring(value)
        var textStart = rest.startIndex
        while let open = rest.firstIndex(of: "{") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { !isVariableCharacter($0) }), rest[close] == "}",
                let first = rest[afterOpen..<close].first, first.isASCII, first.isLowercase
            else {
                rest = rest[afterOpen...]
                continue
            }
            if open > textStart { parts.append(.text(value[textStart..<open])) }
            parts.append(.variable(String(rest[afterOpen..<close])))
            textStart = rest.index(after: close)
            rest = rest[textStart...]
        }
        if textStart < value.endIndex { parts.append(.text(value[textStart...])) }
        return parts
    }

    /// A value is cut as the character walk cut it, with or without a `{`: plain text, JSON, placeholders, a brace a
    /// combining mark joins, text beyond ASCII, nothing at all.
    @Test(arguments: [
        "", "consent", "1", "Région du locataire", "{tenant}", "x-{tenant}-{region_1}", "{\"id_token\":{\"email\":null}}", "{\u{301}tenant}",
        "{Tenant}", "{9lives}", "{a", "a}", "{}", "👩‍💻 {app} ☃", "e\u{301}{x}", "com.example.{app}", "https://{tenant}.example.com",
    ])
    func partsAreWhatTheWalkMade(value: String) {
        #expect(ProviderDescriptor.parameterParts(value) == walked(value))
        #expect(ProviderDescriptor.parameterVariables(in: value) == walked(value).compactMap { if case .variable(let name) = $0 { name } else { nil } })
    }
}
