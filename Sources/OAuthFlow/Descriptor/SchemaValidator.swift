import Foundation
import Yams

/// Checks a YAML node tree against a ``DescriptorSchema/Shape``, collecting positioned problems.
///
/// Decoding (``DescriptorDocument``'s `decode`) gives no positions and skips unknown
/// keys, so the descriptor is checked here, node by node, before it is decoded.
///
/// The walk goes by index, through the tree's tables and a ``ShapeTable``'s: no node and no shape
/// is made or copied on the way, so nothing is retained (see Docs/benchmarks.md).
struct SchemaValidator {
    let path: String
    private(set) var problems: [DescriptorProblem] = []
    /// What the last check found each key of each mapping it checked as an object to be (``ShapeTable/KeyField``), by
    /// the key's position in the tree's child table; empty when it checked no such mapping.
    private(set) var keyFields: [ShapeTable.KeyField] = []
    private var visited = 0
    private var gaveUp = false

    /// Whether messages quote the file's values (keys are always named); a resources file's
    /// values are not echoed.
    let showsValues: Bool

    init(path: String, showsValues: Bool = true) {
        self.path = path
        self.showsValues = showsValues
    }

    /// Checks `node`, found at `keyPath`, against `shape`.
    mutating func check(_ node: YAMLNode, against shape: DescriptorSchema.Shape, keyPath: [String]) {
        check(node, against: ShapeTable(shape), keyPath: keyPath)
    }

    /// Checks `node`, found at `keyPath`, against the root of `table`.
    mutating func check(_ node: YAMLNode, against table: ShapeTable, keyPath: [String]) {
        var walk = Walk(tree: node.tree, table: table, path: path, showsValues: showsValues, outerPath: keyPath)
        walk.visited = visited
        walk.gaveUp = gaveUp
        walk.visit(node.index, table.root, node.tree, table)
        visited = walk.visited
        gaveUp = walk.gaveUp
        problems += walk.problems
        keyFields = walk.keyFields
    }
}

/// One check's walk down a tree and a shape table together.
private struct Walk {
    let tree: YAMLTree
    let table: ShapeTable
    let path: String
    let showsValues: Bool
    var problems: [DescriptorProblem] = []
    var visited = 0
    var gaveUp = false
    /// Where the checked node is: the path it was found at, then a step for each key or item below it
    /// (``Step``), which grows and shrinks as the walk goes and is spelled out only for a problem.
    let outerPath: [String]
    private var steps: [Step] = []
    /// ``SchemaValidator/keyFields``: made the size of the tree's child table when the first object is checked.
    var keyFields: [ShapeTable.KeyField] = []
    /// Whether ``keyFields`` are kept: not by a probe that only asks whether a node fits (`matches`).
    var keepsKeyFields = true

    init(tree: YAMLTree, table: ShapeTable, path: String, showsValues: Bool, outerPath: [String]) {
        self.tree = tree
        self.table = table
        self.path = path
        self.showsValues = showsValues
        self.outerPath = outerPath
        // Room for a descriptor's depth at once, where the list grew from nothing by doubling.
        steps.reserveCapacity(16)
    }

    /// One key or list item on the way down: no `String` is made or retained until a problem names it.
    private enum Step {
        /// The key node, in the tree being checked.
        case key(Int32)
        case item(Int)
    }

    /// The key path of the node being checked.
    private var keyPath: [String] {
        outerPath
            + steps.map { step in
                switch step {
                case let .key(index): tree.scalarText(Int(index)) ?? ""
                case let .item(index): String(index)
                }
            }
    }

    /// Checks the child `node` found under `step` against the shape at `shape`.
    private mutating func visit(_ node: Int, _ shape: Int, under step: Step, _ tree: YAMLTree, _ table: ShapeTable) {
        // A scalar that fits and stays within the budget is only counted: its step is recorded for the walk below it
        // and for a finding that names it, and a scalar has nothing below it and, most often, nothing to report.
        switch table.nodes[shape].kind {
        case .object, .map, .list, .either: break
        default:
            guard !gaveUp else { return }
            if visited < DescriptorDocument.maximumNodes, scalarMismatch(node, shape) == nil {
                visited += 1
                return
            }
        }
        steps.append(step)
        visit(node, shape, tree, table)
        steps.removeLast()
    }

    /// Checks `node` against the shape at `shape`.
    ///
    /// The tree and the table (``tree`` and ``table``) are passed in as well: borrowed from the caller, they are
    /// read without the retain and release around each use that reading them through `self`, which this
    /// method changes, costs.
    mutating func visit(_ node: Int, _ shape: Int, _ tree: YAMLTree, _ table: ShapeTable) {
        guard !gaveUp else { return }
        visited += 1
        if visited > DescriptorDocument.maximumNodes {
            gaveUp = true
            report(
                .malformedYAML, at: node, keyPath,
                "document expands to more than \(DescriptorDocument.maximumNodes) nodes (anchors and aliases?)")
            return
        }
        let spec = table.nodes[shape]
        switch spec.kind {
        case .object: visitObject(node, shape, spec, tree, table)
        case .map: visitMap(node, shape, spec, tree, table)
        case .list: visitList(node, shape, spec, tree, table)
        case .either: visitEither(node, shape, spec, tree, table)
        default:
            if let mismatch = scalarMismatch(node, shape) {
                report(.wrongType, at: node, keyPath, message(for: mismatch, node, shape))
            }
        }
    }

    /// Checks a mapping against an object's fields: its keys, then each value against its field's shape, then the
    /// required fields it lacks.
    private mutating func visitObject(_ node: Int, _ shape: Int, _ spec: ShapeTable.Node, _ tree: YAMLTree, _ table: ShapeTable) {
        let entry = tree.entries[node]
        guard entry.kind == .mapping else {
            report(.wrongType, at: node, keyPath, expected(shape, found: node))
            return
        }
        var present = FieldSet(count: Int(spec.count))
        var next = 0
        let first = Int(entry.firstChild)
        if keepsKeyFields, keyFields.isEmpty { keyFields = Array(repeating: .unchecked, count: tree.children.count) }
        for position in stride(from: first, to: first + Int(entry.childCount), by: 2) {
            let key = Int(tree.children[position]), value = Int(tree.children[position + 1])
            let keyEntry = tree.entries[key]
            guard keyEntry.kind == .scalar, keyEntry.tag == .str || keyEntry.tag == .int else {
                let message =
                    keyEntry.tag == .merge
                    ? "YAML merge keys (`<<`) are not read in descriptors; write the keys out" : "keys must be plain strings"
                report(.wrongType, at: key, keyPath, message)
                continue
            }
            let found = tree.withScalarText(key, { table.field(named: $0, in: spec, from: next) }) ?? nil
            if keepsKeyFields { keyFields[position] = ShapeTable.KeyField(shape: Int32(shape), field: Int32(found ?? -1)) }
            guard let field = found else {
                let name = tree.scalarText(key) ?? ""
                let keyPath = self.keyPath
                var message =
                    "unknown key \(TerminalText.quoted(name))"
                    + (keyPath.isEmpty ? "" : " in \(TerminalText.quoted(keyPath.joined(separator: ".")))")
                let names = Array(table.names[Int(spec.first)..<Int(spec.first) + Int(spec.count)])
                if let suggestion = Spelling.closest(to: name, among: names) {
                    message += "; did you mean `\(suggestion)`?"
                }
                report(.unknownKey, at: key, keyPath + [name], message)
                continue
            }
            present.insert(field)
            next = field + 1
            visit(value, Int(table.fields[Int(spec.first) + field].shape), under: .key(Int32(key)), tree, table)
        }
        for field in 0..<Int(spec.count) where table.fields[Int(spec.first) + field].required && !present.contains(field) {
            let name = table.names[Int(spec.first) + field]
            let keyPath = self.keyPath
            let owner = keyPath.isEmpty ? "the descriptor" : TerminalText.quoted(keyPath.joined(separator: "."))
            report(.missingField, at: node, keyPath + [name], "missing required key `\(name)` in \(owner)")
        }
    }

    /// Checks a mapping with free keys, each value against the map's one shape.
    private mutating func visitMap(_ node: Int, _ shape: Int, _ spec: ShapeTable.Node, _ tree: YAMLTree, _ table: ShapeTable) {
        let entry = tree.entries[node]
        guard entry.kind == .mapping else {
            report(.wrongType, at: node, keyPath, expected(shape, found: node))
            return
        }
        let count = Int(entry.childCount) / 2
        guard fitsTheLimit(count, "entries", node) else { return }
        let first = Int(entry.firstChild)
        for position in stride(from: first, to: first + Int(entry.childCount), by: 2) {
            let key = Int(tree.children[position]), value = Int(tree.children[position + 1])
            guard tree.entries[key].kind == .scalar else {
                report(.wrongType, at: key, keyPath, "keys must be plain strings")
                continue
            }
            visit(value, Int(spec.first), under: .key(Int32(key)), tree, table)
        }
    }

    /// Checks a list, each item against the list's one shape.
    private mutating func visitList(_ node: Int, _ shape: Int, _ spec: ShapeTable.Node, _ tree: YAMLTree, _ table: ShapeTable) {
        let entry = tree.entries[node]
        guard entry.kind == .sequence else {
            report(.wrongType, at: node, keyPath, expected(shape, found: node))
            return
        }
        let count = Int(entry.childCount)
        guard fitsTheLimit(count, "items", node) else { return }
        let first = Int(entry.firstChild)
        for index in 0..<count {
            visit(Int(tree.children[first + index]), Int(spec.first), under: .item(index), tree, table)
        }
    }

    /// Checks a node against the options of an `either`: quiet when one fits.
    private mutating func visitEither(_ node: Int, _ shape: Int, _ spec: ShapeTable.Node, _ tree: YAMLTree, _ table: ShapeTable) {
        for option in 0..<Int(spec.count) where matches(node, Int(table.options[Int(spec.first) + option])) { return }
        // A collection and one option of its kind (a mapping among `lacks`' names): that option's own findings say
        // what is wrong with it (an unknown key, with the one meant), rather than that it is none of the options.
        let kind = tree.entries[node].kind
        let fitting = (0..<Int(spec.count)).map { Int(table.options[Int(spec.first) + $0]) }.filter { option in
            switch table.nodes[option].kind {
            case .object, .map: kind == .mapping
            case .list: kind == .sequence
            default: false
            }
        }
        if fitting.count == 1 {
            visit(node, fitting[0], tree, table)
            return
        }
        report(.wrongType, at: node, keyPath, expected(shape, found: node))
    }

    /// Whether a map or a list of `count` entries is within ``DescriptorSchema/maximumEntries``; reports it otherwise.
    private mutating func fitsTheLimit(_ count: Int, _ what: String, _ node: Int) -> Bool {
        guard count > DescriptorSchema.maximumEntries else { return true }
        let keyPath = self.keyPath
        report(
            .wrongType, at: node, keyPath,
            "\(TerminalText.quoted(keyPath.joined(separator: "."))) has \(count) \(what); at most \(DescriptorSchema.maximumEntries) are allowed")
        return false
    }

    /// Whether `node` fits the shape at `shape`, with no problem reported.
    private func matches(_ node: Int, _ shape: Int) -> Bool {
        switch table.nodes[shape].kind {
        case .object, .map, .list, .either:
            // A fresh walk, as a fresh validator was: its own count of nodes; only whether it finds a problem is
            // asked, so it is given no key path to spell out.
            var probe = Walk(tree: tree, table: table, path: path, showsValues: true, outerPath: [])
            probe.keepsKeyFields = false
            probe.visit(node, shape, tree, table)
            return probe.problems.isEmpty
        default:
            // A scalar shape: whether it fits, without the message a mismatch would need.
            return scalarMismatch(node, shape) == nil
        }
    }

    /// Why a scalar does not fit a scalar shape, as found: cheap to make, so a shape tried as one
    /// option of `either` costs no message; ``message(for:_:_:)`` words it when it is reported.
    private enum ScalarMismatch: Equatable {
        /// Not of the shape's type; `quoteHint` when a quoted string would have been.
        case type(quoteHint: Bool)
        case pattern(String)
        case urlTooLong
        case placeholders(Int)
        case notAbsolute(String)
        case outOfRange(Int)
        case notAllowed
    }

    /// Why a scalar node does not fit the scalar shape at `shape`, or nil when it does.
    private func scalarMismatch(_ node: Int, _ shape: Int) -> ScalarMismatch? {
        let entry = tree.entries[node]
        guard entry.kind == .scalar else { return .type(quoteHint: false) }
        let tag = entry.tag
        let spec = table.nodes[shape]
        switch spec.kind {
        case .string:
            guard tag == .str else { return .type(quoteHint: true) }
            if spec.first >= 0,
                tree.withScalarText(node, { table.programs[Int(spec.first)]?.matchesWhole(utf8: $0) ?? false }) == false
            {
                return .pattern(table.patterns[Int(spec.first)])
            }
        case .urlTemplate:
            guard tag == .str else { return .type(quoteHint: false) }
            guard Int(entry.expandedBytes) <= DescriptorSchema.maximumURLLength else { return .urlTooLong }
            switch tree.withScalarText(node, { URLTemplate.problem(of: $0, maximumPlaceholders: DescriptorSchema.maximumPlaceholders) }) ?? nil {
            case nil: break
            case let .placeholders(count): return .placeholders(count)
            case let .shape(reason): return .notAbsolute(reason)
            }
        case .boolean:
            guard tag == .bool else { return .type(quoteHint: false) }
        case .integer:
            guard tag == .int, let value = tree.scalarText(node).flatMap({ Int($0) }) else { return .type(quoteHint: false) }
            if value < spec.lower || value > spec.upper { return .outOfRange(value) }
        case .choice:
            guard tag == .str else { return .type(quoteHint: false) }
            guard tree.withScalarText(node, { table.choice(spec, holds: $0) }) == true else {
                // Not the same bytes; canonically equivalent text is allowed as a String comparison allows it.
                if case let .choice(values) = table.shapes[shape], let text = tree.scalarText(node), values.contains(text) { return nil }
                return .notAllowed
            }
        default:
            return .type(quoteHint: false)
        }
        return nil
    }

    /// The words for a scalar that does not fit the shape at `shape`.
    private func message(for mismatch: ScalarMismatch, _ node: Int, _ shape: Int) -> String {
        let text = tree.scalarText(node) ?? ""
        let shapeValue = table.shapes[shape]
        switch mismatch {
        case let .type(quoteHint): return expected(shape, found: node) + (quoteHint ? "; quote it if you mean the text" : "")
        case let .pattern(pattern): return "\(value(text)) does not match the pattern `\(pattern)`"
        case .urlTooLong: return "the URL is longer than \(DescriptorSchema.maximumURLLength) bytes"
        case let .placeholders(count):
            return "the URL has \(count) `{placeholders}`; at most \(DescriptorSchema.maximumPlaceholders) are allowed"
        case let .notAbsolute(reason): return text.isEmpty ? "the URL is empty" : "\(value(text)) is not an absolute URL: \(reason)"
        case let .outOfRange(value):
            guard case let .integer(range) = shapeValue, range.count == 1 else { return "\(value) is out of range; expected \(shapeValue.phrase)" }
            return "unsupported value \(value); this OAuthFlow reads \(range.lowerBound)"
        case .notAllowed:
            var message = "\(value(text)) is not allowed here; expected \(shapeValue.phrase)"
            if case let .choice(values) = shapeValue, let suggestion = Spelling.didYouMean(text, among: values) {
                message += "; " + suggestion
            }
            return message
        }
    }

    private func expected(_ shape: Int, found node: Int) -> String {
        "expected \(table.shapes[shape].phrase), found \(describe(node))"
    }

    func describe(_ node: Int) -> String {
        let entry = tree.entries[node]
        switch entry.kind {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar:
            let text = tree.scalarText(node) ?? ""
            switch entry.tag {
            case .null: return "an empty value"
            case .bool: return showsValues ? "the boolean \(TerminalText.quoted(text))" : "a boolean"
            case .int: return showsValues ? "the integer \(TerminalText.quoted(text))" : "an integer"
            case .float: return showsValues ? "the number \(TerminalText.quoted(text))" : "a number"
            default: return showsValues ? "the string \(TerminalText.quoted(text))" : "a string"
            }
        }
    }

    /// A value from the file for a message: quoted and cut short (``TerminalText/quoted(_:)``), or
    /// "the value" when values are not shown.
    private func value(_ text: String) -> String {
        showsValues ? TerminalText.quoted(text) : "the value"
    }

    private mutating func report(_ kind: DescriptorProblem.Kind, at node: Int, _ keyPath: [String], _ message: String) {
        let entry = tree.entries[node]
        problems.append(
            DescriptorProblem(
                kind: kind,
                location: SourceLocation(path: path, line: Int(entry.line), column: Int(entry.column)),
                message: message,
                keyPath: keyPath.joined(separator: ".")))
    }
}

/// Which fields of an object a mapping holds: bits for the usual few dozen, an array beyond.
private struct FieldSet {
    private var bits: UInt64 = 0
    /// Only for an object of more than 64 fields; nil otherwise. An empty list in its place was copied into a new one
    /// at every insertion (the compiler made it unique before looking at which branch ran): an allocation for each
    /// mapping of every file.
    private var more: [Bool]?

    init(count: Int) {
        more = count > 64 ? Array(repeating: false, count: count) : nil
    }

    mutating func insert(_ field: Int) {
        if more == nil { bits |= 1 << UInt64(field) } else { more?[field] = true }
    }

    func contains(_ field: Int) -> Bool {
        more.map { $0[field] } ?? (bits & (1 << UInt64(field)) != 0)
    }
}
