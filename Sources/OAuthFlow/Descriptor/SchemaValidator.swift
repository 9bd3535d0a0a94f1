import Foundation
import Yams

/// Checks a YAML node tree against a ``DescriptorSchema/Shape``, collecting positioned problems.
///
/// Decoding (``DescriptorDocument``'s `decode`) gives no positions and skips unknown
/// keys, so the descriptor is checked here, node by node, before it is decoded.
struct SchemaValidator {
    let path: String
    private(set) var problems: [DescriptorProblem] = []
    private var visited = 0
    private var gaveUp = false
    /// Where the checked node is: the path it was found at, then a step for each key or item below it
    /// (``Step``), which grows and shrinks as the walk goes and is spelled out only for a problem.
    private var outerPath: [String] = []
    private var steps: [Step] = []
    private var tree: YAMLTree?

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
                case let .key(index): tree.flatMap { YAMLNode(tree: $0, index: Int(index)).string } ?? ""
                case let .item(index): String(index)
                }
            }
    }

    /// Whether messages quote the file's values (keys are always named); a resources file's
    /// values are not echoed.
    let showsValues: Bool

    init(path: String, showsValues: Bool = true) {
        self.path = path
        self.showsValues = showsValues
    }

    /// Checks `node`, found at `keyPath`, against `shape`.
    mutating func check(_ node: YAMLNode, against shape: DescriptorSchema.Shape, keyPath: [String]) {
        outerPath = keyPath
        steps = []
        tree = node.tree
        visit(node, shape)
    }

    /// Checks the child `node` found under `step`.
    private mutating func visit(_ node: YAMLNode, _ shape: DescriptorSchema.Shape, under step: Step) {
        steps.append(step)
        visit(node, shape)
        steps.removeLast()
    }

    private mutating func visit(_ node: YAMLNode, _ shape: DescriptorSchema.Shape) {
        guard !gaveUp else { return }
        visited += 1
        if visited > DescriptorDocument.maximumNodes {
            gaveUp = true
            report(
                .malformedYAML, at: node, keyPath,
                "document expands to more than \(DescriptorDocument.maximumNodes) nodes (anchors and aliases?)")
            return
        }
        switch shape {
        case let .object(fields):
            guard let mapping = mapping(node, shape) else { return }
            var present = FieldSet(count: fields.count)
            var next = 0
            for (key, value) in mapping {
                guard key.kind == .scalar, key.tagCode == .str || key.tagCode == .int else {
                    let message =
                        key.tagCode == .merge
                        ? "YAML merge keys (`<<`) are not read in descriptors; write the keys out" : "keys must be plain strings"
                    report(.wrongType, at: key, keyPath, message)
                    continue
                }
                // By index: a `Field` copied out of the array costs five retains and releases.
                guard let field = DescriptorSchema.Field.index(ofKey: key, in: fields, from: next) else {
                    let name = key.string ?? ""
                    var message =
                        "unknown key \(TerminalText.quoted(name))"
                        + (keyPath.isEmpty ? "" : " in \(TerminalText.quoted(keyPath.joined(separator: ".")))")
                    if let suggestion = Spelling.closest(to: name, among: fields.map(\.name)) {
                        message += "; did you mean `\(suggestion)`?"
                    }
                    report(.unknownKey, at: key, keyPath + [name], message)
                    continue
                }
                present.insert(field)
                next = field + 1
                visit(value, fields[field].shape, under: .key(Int32(key.index)))
            }
            for field in fields.indices where fields[field].required && !present.contains(field) {
                let name = fields[field].name
                let owner = keyPath.isEmpty ? "the descriptor" : TerminalText.quoted(keyPath.joined(separator: "."))
                report(.missingField, at: node, keyPath + [name], "missing required key `\(name)` in \(owner)")
            }
        case let .map(valueShape):
            guard let mapping = mapping(node, shape) else { return }
            guard mapping.count <= DescriptorSchema.maximumEntries else {
                report(
                    .wrongType, at: node, keyPath,
                    "\(TerminalText.quoted(keyPath.joined(separator: "."))) has \(mapping.count) entries; at most \(DescriptorSchema.maximumEntries) are allowed"
                )
                return
            }
            for (key, value) in mapping {
                guard key.kind == .scalar else {
                    report(.wrongType, at: key, keyPath, "keys must be plain strings")
                    continue
                }
                visit(value, valueShape, under: .key(Int32(key.index)))
            }
        case let .list(itemShape):
            guard node.kind == .sequence else {
                report(.wrongType, at: node, keyPath, expected(shape, found: node))
                return
            }
            let sequence = node.items
            guard sequence.count <= DescriptorSchema.maximumEntries else {
                report(
                    .wrongType, at: node, keyPath,
                    "\(TerminalText.quoted(keyPath.joined(separator: "."))) has \(sequence.count) items; at most \(DescriptorSchema.maximumEntries) are allowed"
                )
                return
            }
            for (index, item) in sequence.enumerated() {
                visit(item, itemShape, under: .item(index))
            }
        case let .either(shapes):
            for option in shapes where matches(node, option) { return }
            report(.wrongType, at: node, keyPath, expected(shape, found: node))
        default:
            if let mismatch = scalarMismatch(node, shape) {
                report(.wrongType, at: node, keyPath, message(for: mismatch, node, shape))
            }
        }
    }

    private func matches(_ node: YAMLNode, _ shape: DescriptorSchema.Shape) -> Bool {
        switch shape {
        case .object, .map, .list, .either:
            var probe = SchemaValidator(path: path)
            probe.check(node, against: shape, keyPath: keyPath)
            return probe.problems.isEmpty
        default:
            // A scalar shape: whether it fits, without the message a mismatch would need.
            return scalarMismatch(node, shape) == nil
        }
    }

    /// The mapping's entries, or nil (and a problem) when the node is not a mapping.
    /// Repeated keys never get here: composing the tree refuses them.
    private mutating func mapping(_ node: YAMLNode, _ shape: DescriptorSchema.Shape) -> YAMLNode.Pairs? {
        guard node.kind == .mapping else {
            report(.wrongType, at: node, keyPath, expected(shape, found: node))
            return nil
        }
        return node.pairs
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

    /// Why a scalar node does not fit a scalar shape, or nil when it does.
    private func scalarMismatch(_ node: YAMLNode, _ shape: DescriptorSchema.Shape) -> ScalarMismatch? {
        guard node.kind == .scalar else { return .type(quoteHint: false) }
        let tag = node.tagCode
        switch shape {
        case let .string(pattern):
            guard tag == .str else { return .type(quoteHint: true) }
            if let pattern, let text = node.string, !Pattern.matchesWhole(text, pattern: pattern) { return .pattern(pattern) }
        case .urlTemplate:
            guard tag == .str else { return .type(quoteHint: false) }
            guard node.expandedBytes <= DescriptorSchema.maximumURLLength else { return .urlTooLong }
            switch node.withText({ URLTemplate.problem(of: $0, maximumPlaceholders: DescriptorSchema.maximumPlaceholders) }) ?? nil {
            case nil: break
            case let .placeholders(count): return .placeholders(count)
            case let .shape(reason): return .notAbsolute(reason)
            }
        case .boolean:
            guard tag == .bool else { return .type(quoteHint: false) }
        case let .integer(range):
            guard tag == .int, let value = node.string.flatMap({ Int($0) }) else { return .type(quoteHint: false) }
            if !range.contains(value) { return .outOfRange(value) }
        case let .choice(values):
            guard tag == .str else { return .type(quoteHint: false) }
            let found = node.withText { text in
                values.contains { value in
                    var value = value
                    return value.withUTF8 { YAMLTree.equal($0, text) }
                }
            }
            guard found == true else {
                // Not the same bytes; canonically equivalent text is allowed as a String comparison allows it.
                if let text = node.string, values.contains(text) { return nil }
                return .notAllowed
            }
        default:
            return .type(quoteHint: false)
        }
        return nil
    }

    /// The words for a scalar that does not fit `shape`.
    private func message(for mismatch: ScalarMismatch, _ node: YAMLNode, _ shape: DescriptorSchema.Shape) -> String {
        let text = node.string ?? ""
        switch mismatch {
        case let .type(quoteHint): return expected(shape, found: node) + (quoteHint ? "; quote it if you mean the text" : "")
        case let .pattern(pattern): return "\(value(text)) does not match the pattern `\(pattern)`"
        case .urlTooLong: return "the URL is longer than \(DescriptorSchema.maximumURLLength) bytes"
        case let .placeholders(count):
            return "the URL has \(count) `{placeholders}`; at most \(DescriptorSchema.maximumPlaceholders) are allowed"
        case let .notAbsolute(reason): return text.isEmpty ? "the URL is empty" : "\(value(text)) is not an absolute URL: \(reason)"
        case let .outOfRange(value):
            guard case let .integer(range) = shape, range.count == 1 else { return "\(value) is out of range; expected \(shape.phrase)" }
            return "unsupported value \(value); this OAuthFlow reads \(range.lowerBound)"
        case .notAllowed:
            var message = "\(value(text)) is not allowed here; expected \(shape.phrase)"
            if case let .choice(values) = shape, let suggestion = Spelling.closest(to: text, among: values) {
                message += "; did you mean `\(suggestion)`?"
            }
            return message
        }
    }

    private func expected(_ shape: DescriptorSchema.Shape, found node: YAMLNode) -> String {
        "expected \(shape.phrase), found \(describe(node))"
    }

    func describe(_ node: YAMLNode) -> String {
        switch node.kind {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar:
            let text = node.string ?? ""
            switch node.tagCode {
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

    private mutating func report(_ kind: DescriptorProblem.Kind, at node: YAMLNode, _ keyPath: [String], _ message: String) {
        problems.append(
            DescriptorProblem(
                kind: kind,
                location: SourceLocation(path: path, line: node.line, column: node.column),
                message: message,
                keyPath: keyPath.joined(separator: ".")))
    }
}

/// Which fields of an object a mapping holds: bits for the usual few dozen, an array beyond.
private struct FieldSet {
    private var bits: UInt64 = 0
    private var more: [Bool]

    init(count: Int) {
        more = count > 64 ? Array(repeating: false, count: count) : []
    }

    mutating func insert(_ field: Int) {
        if more.isEmpty { bits |= 1 << UInt64(field) } else { more[field] = true }
    }

    func contains(_ field: Int) -> Bool {
        more.isEmpty ? bits & (1 << UInt64(field)) != 0 : more[field]
    }
}
