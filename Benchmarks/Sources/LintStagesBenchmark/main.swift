// Where lint's time goes, stage by stage, on one core: each stage of every file of a corpus,
// run in a loop, against libyaml's own event parse of the same bytes.
// Run: cd Benchmarks && swift run -c release LintStagesBenchmark [DIRECTORY] (EACH_RULE=1 also times each rule alone)
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
// ONLY_PARSE=1 parses every file thirty times and stops: a loop for `perf record`.
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
        guard let base = raw.baseAddress else { return }
        yaml_parser_set_input_string(&parser, base.assumingMemoryBound(to: UInt8.self), raw.count)
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
let instances = Linter.allRules.map { $0.init() }
let rules = perFile("every rule, file by file") { index in
    for rule in instances { sink += rule.validate(lintFiles[index]).count }
}
// The stages one after another on each file, as lint runs them: the file's tree is still in the cache for the rules.
let pipeline = perFile("parse, LintFile, every rule") { index in
    let file = LintFile(document: DescriptorDocument.parse(contents[index], path: files[index].relativePath))
    for rule in instances { sink += rule.validate(file).count }
}
print(
    String(
        format:
            "schema + decode (parse - compose): %.2f µs; rules in the pipeline: %.2f µs; read + pipeline: %.2f µs (%.2f× libyaml's events + read)",
        parse - compose, pipeline - parse - lintFile, read + pipeline, (read + pipeline) / (events + read)))
if ProcessInfo.processInfo.environment["EACH_RULE"] != nil {
    // Each rule over every file in turn: the files are cold in the cache by then, so these overstate.
    for (rule, instance) in zip(Linter.allRules, instances) {
        _ = perFile("  \(rule.description.identifier)") { index in sink += instance.validate(lintFiles[index]).count }
    }
}
print("checksum \(sink)")
