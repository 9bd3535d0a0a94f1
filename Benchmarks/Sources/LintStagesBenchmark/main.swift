// Where lint's time goes, stage by stage, on one core: each stage of every file of a corpus,
// run in a loop, against libyaml's own event parse of the same bytes.
// Run: cd Benchmarks && swift run -c release LintStagesBenchmark [DIRECTORY]
// (DIRECTORY defaults to the 1,000-file corpus compare.sh writes).
import CYaml
import Foundation
import OAuthFlow
import OAuthFlowLint

let directory = URL(
    fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ".build/compare/corpus-1000", isDirectory: true)
let files = try Linter.files(in: [directory])
let contents = try files.map { try Data(contentsOf: $0) }
let texts = contents.map { String(decoding: $0, as: UTF8.self) }
print("\(files.count) files from \(directory.relativePath)")

/// Microseconds per file for `body` over every file, the best of five rounds.
func perFile(_ name: String, _ body: (Int) -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        for index in files.indices { body(index) }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(files.count))
    }
    print(String(format: "%-34@ %8.2f µs a file", name as NSString, best))
    return best
}

var sink = 0
if ProcessInfo.processInfo.environment["ONLY_PARSE"] != nil {
    for _ in 0..<30 {
        for index in files.indices { sink += DescriptorDocument.parse(contents[index], path: files[index].relativePath).problems.count }
    }
    print(sink)
    exit(0)
}
let events = perFile("libyaml events") { index in
    contents[index].withUnsafeBytes { raw in
        var parser = yaml_parser_t()
        yaml_parser_initialize(&parser)
        yaml_parser_set_input_string(&parser, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count)
        var event = yaml_event_t()
        var done = false
        while !done {
            guard yaml_parser_parse(&parser, &event) == 1 else { break }
            done = event.type == YAML_STREAM_END_EVENT
            yaml_event_delete(&event)
            sink += 1
        }
        yaml_parser_delete(&parser)
    }
}
let read = perFile("read the file") { index in sink += (try? Data(contentsOf: files[index]))?.count ?? 0 }
let compose = perFile("compose the tree") { index in sink += (try? YAMLTree.compose(texts[index]))?.root.line ?? 0 }
let parse = perFile("parse (compose, schema, decode)") { index in
    sink += DescriptorDocument.parse(contents[index], path: files[index].relativePath).problems.count
}
let documents = files.indices.map { DescriptorDocument.parse(contents[$0], path: files[$0].relativePath) }
let lintFile = perFile("LintFile (URLs, placeholders)") { index in sink += LintFile(document: documents[index]).stem.count }
let lintFiles = documents.map(LintFile.init(document:))
var rules: [(String, Double)] = []
for rule in Linter.allRules {
    let instance = rule.init()
    rules.append(
        (rule.description.identifier, perFile("  \(rule.description.identifier)") { index in sink += instance.validate(lintFiles[index]).count }))
}
let ruleTotal = rules.map(\.1).reduce(0, +)
print(
    String(
        format: "schema + decode (parse - compose): %.2f µs; rules: %.2f µs; all: %.2f µs (%.2f× libyaml's events + read)",
        parse - compose, ruleTotal, read + parse + lintFile + ruleTotal, (read + parse + lintFile + ruleTotal) / (events + read)))
print("checksum \(sink)")
_ = perFile("x: descriptor?.security.pkceMethod") { index in sink += lintFiles[index].descriptor?.security.pkceMethod == .plain ? 1 : 0 }
_ = perFile("x: document.descriptor?.security") { index in sink += lintFiles[index].document.descriptor?.security.pkceMethod == .plain ? 1 : 0 }
let pk = PKCEMethodS256Rule()
_ = perFile("x: PKCEMethodS256Rule direct") { index in sink += pk.validate(lintFiles[index]).count }
let anyRule: any LintRule = pk
_ = perFile("x: PKCEMethodS256Rule existential") { index in sink += anyRule.validate(lintFiles[index]).count }
_ = perFile("x: empty closure") { index in sink += index }
let f0 = lintFiles[0]
_ = perFile("x: PKCEMethodS256Rule on one file") { _ in sink += pk.validate(f0).count }
