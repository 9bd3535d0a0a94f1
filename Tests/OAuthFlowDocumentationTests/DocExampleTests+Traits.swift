import Foundation
import OAuthFlowTestSupport
import Testing

/// What README.md and the guides say about the package traits and installing the CLI, held to Package.swift, the
/// modules' PackageTrait.swift and scripts/install-cli.sh.
extension DocExampleTests {
    /// The guides that say which trait each product they document needs.
    static let guidesNamingTraits = [
        "Docs/apple.md", "Docs/web.md", "Docs/logout.md", "Docs/security-events.md", "Docs/mcp.md", "Docs/operations.md",
        "Docs/tokens.md", "Docs/testing.md", "Docs/cli.md", "Docs/design.md", "Docs/host-code.md",
    ]

    static func text(_ file: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8)
    }

    /// README.md is read in a minute, and its two commands are exactly the run and the test command.
    @Test func readmeIsShortAndHasTheTwoCommands() throws {
        let readme = try Self.text("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count < 200, "README.md is 200 lines or more")
        let section = try #require(readme.components(separatedBy: "\n## ").first { $0.hasPrefix("The two commands\n") })
        let block = try #require(try Self.blocks(in: "README.md").first { $0.language == "sh" && section.contains($0.lines.joined(separator: "\n")) })
        let commands = block.lines.map { line in
            (line.range(of: "#").map { String(line[..<$0.lowerBound]) } ?? line).trimmingCharacters(in: .whitespaces)
        }
        #expect(commands == ["swift run --traits CLI oauthflow lint --strict providers", "bash scripts/test.sh"])
    }

    /// README's table of products and traits: each product whose module stops the build without a trait is in a row
    /// naming that trait, and a product in the row of those needing none needs none.
    @Test func readmeSaysWhichTraitEachProductNeeds() throws {
        let readme = try Self.text("README.md")
        let rows = readme.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| ") && $0.contains("`") }
        let declared = try Self.declaredTraits()
        let modules = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Sources").path)
        var checked = 0
        for module in modules where module.hasPrefix("OAuthFlow") || module == "oauthflow" {
            let needed = try Self.requiredTraits(ofModule: module)
            guard let row = rows.first(where: { $0.split(separator: "|").first?.contains("`\(module)`") == true }) else {
                #expect(needed.isEmpty || !Self.isProduct(module), "README.md's trait table has no row for \(module), which needs \(needed.sorted())")
                continue
            }
            let traitColumn = row.split(separator: "|").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if traitColumn == "none" {
                #expect(needed.isEmpty, "README.md says \(module) needs no trait; it needs \(needed.sorted())")
            }
            for trait in needed {
                #expect(row.contains("`\(trait)`"), "README.md's row for \(module) does not name its trait \(trait)")
            }
            checked += 1
        }
        for row in rows {
            for name in Self.backticked(row.split(separator: "|").last.map(String.init) ?? "") where name != "none" {
                #expect(declared.contains(name), "README.md's trait table names \(name), which Package.swift does not declare")
            }
        }
        #expect(checked >= 10)
    }

    static func isProduct(_ module: String) -> Bool {
        (try? Self.text("Package.swift").contains(".library(name: \"\(module)\"")) == true || module == "oauthflow"
    }

    static func backticked(_ text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// Each guide says which package trait its products need, and every trait README.md and the guides name (in a
    /// manifest's `traits: [...]`, `--traits`, or "the trait `X`") is one Package.swift declares.
    @Test func docsNameOnlyDeclaredTraits() throws {
        let declared = try Self.declaredTraits()
        let spans = try NSRegularExpression(pattern: #"\btrait `([A-Za-z0-9_]+)`|\btraits `([A-Za-z0-9_]+)`(?: (?:and|or) `([A-Za-z0-9_]+)`)?"#)
        let manifests = try NSRegularExpression(pattern: #"traits: \[([^\]]*)\]|--traits ([A-Za-z0-9_,]+)"#)
        var named = 0
        for file in ["README.md"] + Self.guidesNamingTraits {
            let text = try Self.text(file).replacingOccurrences(of: "\n", with: " ")
            if file != "README.md" {
                #expect(text.contains("package trait"), "\(file) does not say which package trait its products need")
            }
            for expression in [spans, manifests] {
                for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    for group in 1..<match.numberOfRanges {
                        guard let range = Range(match.range(at: group), in: text) else { continue }
                        let names = text[range].split(whereSeparator: { ",\"\\ ".contains($0) }).map(String.init)
                        for name in names {
                            #expect(declared.contains(name), "\(file) names the trait \(name), which Package.swift does not declare")
                            named += 1
                        }
                    }
                }
            }
        }
        #expect(named > 20)
    }

    /// scripts/install-cli.sh, which README.md and Docs/cli.md give as the one install command: a malformed command
    /// line is refused with a sentence and 64 before anything is built, and it installs what Docs/cli.md lists.
    @Test func installScriptRefusesABadCommandLineAndInstallsWhatTheDocsSay() async throws {
        let bash = URL(fileURLWithPath: "/bin/bash")
        let unknown = try await runProcess(bash, ["scripts/install-cli.sh", "--prefx", "/tmp/x"])
        #expect(unknown.status == 64 && unknown.stderr.contains("install-cli: unknown argument: --prefx"), "\(unknown)")
        let missing = try await runProcess(bash, ["scripts/install-cli.sh", "--prefix"])
        #expect(missing.status == 64 && missing.stderr.contains("install-cli: --prefix needs a directory"), "\(missing)")
        let help = try await runProcess(bash, ["scripts/install-cli.sh", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--prefix DIR"), "\(help)")

        let script = try Self.text("scripts/install-cli.sh")
        #expect(script.contains("set -euo pipefail"))
        #expect(script.contains("--traits CLI") && script.contains("--static-swift-stdlib"))
        let cli = try Self.text("Docs/cli.md")
        for (built, installed) in [("oauthflow-launcher", "oauthflow"), ("oauthflow", "oauthflow-full")] {
            #expect(script.contains("install -m 755 \"$built/\(built)\" \"$bin/.\(installed).new\""), "the script installs no \(installed)")
            #expect(script.contains("mv -f \"$bin/.\(installed).new\" \"$bin/\(installed)\""), "the script installs no \(installed)")
            #expect(cli.contains("| `\(installed)` |"), "Docs/cli.md's install table has no \(installed)")
            #expect(FileManager.default.isExecutableFile(atPath: try builtProduct(built).path), "the build makes no \(built)")
        }
        for resources in ["OAuthFlow_OAuthFlow.resources", "OAuthFlow_OAuthFlow.bundle"] {
            #expect(script.contains("resources=\"\(resources)\"") && cli.contains("`\(resources)`"), "\(resources)")
        }
        #if os(Linux)
        let bundle = try builtProduct("oauthflow").deletingLastPathComponent().appendingPathComponent("OAuthFlow_OAuthFlow.resources")
        #expect(FileManager.default.fileExists(atPath: bundle.path), "the build makes no OAuthFlow_OAuthFlow.resources")
        #endif
    }
}
