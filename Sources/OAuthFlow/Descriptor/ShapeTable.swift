import Foundation

/// A ``DescriptorSchema/Shape`` laid out flat in tables of plain values, for ``SchemaValidator`` to walk by index.
///
/// A shape is an indirect enum: matching one copies its payload, and each field's shape read out of its
/// object's array is a copy too, a retain and a release each, on every node of every file checked (atomic
/// operations, as lint runs on every core). Here each shape is a ``Node`` of integers, each object's fields
/// a run of ``FieldEntry`` values and each choice's values a run of bytes, so the check reads them without
/// retaining anything. The shapes themselves are kept beside them (``shapes``, ``names``) for the messages.
final class ShapeTable: Sendable {
    /// A shape's kind, as ``DescriptorSchema/Shape`` has them.
    enum Kind: UInt8, Sendable {
        case string, urlTemplate, boolean, integer, choice, list, map, object, either
    }

    /// One shape, in plain values.
    struct Node: Sendable {
        var kind: Kind
        /// A list's or map's item shape (a node); an object's first field (in ``fields``); an `either`'s
        /// first option (in ``options``); a choice's first value (in ``values``); a string's pattern (in
        /// ``patterns``, -1 for none).
        var first: Int32 = -1
        /// An object's fields, an `either`'s options or a choice's values.
        var count: Int32 = 0
        /// An integer's range.
        var lower = 0
        var upper = 0
    }

    /// One field of an object.
    struct FieldEntry: Sendable {
        /// The name's length and first bytes.
        var key: NameKey
        /// The value's shape (a node).
        var shape: Int32
        var required: Bool
    }

    /// Which field of which object shape a mapping's key is, as the schema check found it: kept by the key's position in
    /// the tree's child table (``SchemaValidator/keyFields``), so that the decoder reads a mapping's fields without
    /// searching for each key's name a second time. `shape` is -1 where no object was checked; `field` is -1 for a key
    /// the object does not declare.
    struct KeyField: Sendable {
        var shape: Int32
        var field: Int32

        static let unchecked = KeyField(shape: -1, field: -1)
    }

    /// The shapes; node 0 is the root.
    let nodes: [Node]
    /// Each node's shape, for the messages that say what was expected.
    let shapes: [DescriptorSchema.Shape]
    /// Every object's fields, each object's contiguous.
    let fields: [FieldEntry]
    /// The fields' names, beside ``fields``.
    let names: [String]
    /// Every `either`'s options (nodes), each `either`'s contiguous.
    let options: [Int32]
    /// Every choice's allowed values, as where each one's bytes are in ``valueBytes``.
    let values: [(start: Int32, count: Int32)]
    let valueBytes: [UInt8]
    /// The strings' patterns.
    let patterns: [String]
    /// Each of ``patterns`` compiled, nil for one that cannot be (which then matches nothing): compiled once with the
    /// table, so that checking a value asks no shared cache (and takes no lock that lint's threads would queue on).
    let programs: [Pattern.Program?]

    /// The root node.
    var root: Int { 0 }

    /// The descriptor's shape: the top-level fields of ``DescriptorSchema``.
    static let descriptor = ShapeTable(.object(DescriptorSchema.fields))
    /// A resources file's shape: a list of resources.
    static let resources = ShapeTable(.list(.object(DescriptorSchema.resourceFields)))
    /// A table of one shape, for a ``PlainObject`` that reads a dictionary rather than a tree.
    static let placeholder = ShapeTable(.boolean)

    /// Lays `root` out.
    init(_ root: DescriptorSchema.Shape) {
        var builder = Builder()
        _ = builder.add(root)
        nodes = builder.nodes
        shapes = builder.shapes
        fields = builder.fields
        names = builder.names
        options = builder.options
        values = builder.values
        valueBytes = builder.valueBytes
        patterns = builder.patterns
        // Each pattern compiled once, here: the schema repeats a few patterns many times, and the shared cache's lock
        // and hashing for each repeat cost more than the compiling.
        var compiled: [String: Pattern.Program?] = [:]
        programs = builder.patterns.map { pattern in
            if let known = compiled[pattern] { return known }
            let program = try? Pattern.Program(pattern)
            compiled[pattern] = program
            return program
        }
    }

    /// The index, among the fields of the object at node `object`, of the one named by `bytes`, searched
    /// from `start` round to it.
    ///
    /// Descriptors list their keys in about the schema's order, and the check and the decoder read them in
    /// that order too: starting after the last field found, the search mostly ends at its first or second
    /// comparison. The length and first bytes (``NameKey``) tell names apart, compared in place; only a
    /// longer name is compared whole.
    func field(named bytes: UnsafeBufferPointer<UInt8>, in object: Node, from start: Int) -> Int? {
        let count = Int(object.count), first = Int(object.first)
        var index = start < count ? start : 0
        for _ in 0..<count {
            let key = fields[first + index].key
            if key.length == bytes.count, key.begins(bytes), bytes.count <= NameKey.width || hasName(first + index, bytes) {
                return index
            }
            index = index + 1 == count ? 0 : index + 1
        }
        return nil
    }

    /// The index, among the fields of the object at node `object`, of the one named `name`, searched from
    /// `start` round to it as ``field(named:in:from:)`` searches bytes: lengths first, then the names as
    /// strings.
    func field(named name: String, in object: Node, from start: Int) -> Int? {
        let length = name.utf8.count
        let count = Int(object.count), first = Int(object.first)
        var index = start < count ? start : 0
        for _ in 0..<count {
            if fields[first + index].key.length == length, names[first + index] == name { return index }
            index = index + 1 == count ? 0 : index + 1
        }
        return nil
    }

    private func hasName(_ field: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var name = names[field]
        return name.withUTF8 { YAMLTree.equal($0, bytes) }
    }

    /// Whether `bytes` are, byte for byte, one of the values of the choice `choice`.
    func choice(_ choice: Node, holds bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        valueBytes.withUnsafeBufferPointer { all in
            for value in values[Int(choice.first)..<Int(choice.first) + Int(choice.count)] where Int(value.count) == bytes.count {
                let slice = UnsafeBufferPointer(rebasing: all[Int(value.start)..<Int(value.start) + Int(value.count)])
                if YAMLTree.equal(slice, bytes) { return true }
            }
            return false
        }
    }

    /// Fills the tables, depth first.
    private struct Builder {
        var nodes: [Node] = []
        var shapes: [DescriptorSchema.Shape] = []
        var fields: [FieldEntry] = []
        var names: [String] = []
        var options: [Int32] = []
        var values: [(start: Int32, count: Int32)] = []
        var valueBytes: [UInt8] = []
        var patterns: [String] = []

        /// Adds `shape` and everything under it; answers its node.
        mutating func add(_ shape: DescriptorSchema.Shape) -> Int32 {
            let index = nodes.count
            nodes.append(Node(kind: .string))
            shapes.append(shape)
            var node: Node
            switch shape {
            case let .string(pattern):
                node = Node(kind: .string)
                if let pattern {
                    node.first = Int32(patterns.count)
                    patterns.append(pattern)
                }
            case .urlTemplate:
                node = Node(kind: .urlTemplate)
            case .boolean:
                node = Node(kind: .boolean)
            case let .integer(range):
                node = Node(kind: .integer, lower: range.lowerBound, upper: range.upperBound)
            case let .choice(allowed):
                node = Node(kind: .choice, first: Int32(values.count), count: Int32(allowed.count))
                for value in allowed {
                    values.append((Int32(valueBytes.count), Int32(value.utf8.count)))
                    valueBytes.append(contentsOf: value.utf8)
                }
            case let .list(item):
                node = Node(kind: .list)
                node.first = add(item)
            case let .map(value):
                node = Node(kind: .map)
                node.first = add(value)
            case let .object(declared):
                // The fields' slots first, so that each object's are contiguous; their shapes after.
                let start = fields.count
                node = Node(kind: .object, first: Int32(start), count: Int32(declared.count))
                for field in declared {
                    fields.append(FieldEntry(key: field.key, shape: -1, required: field.required))
                    names.append(field.name)
                }
                for (offset, field) in declared.enumerated() {
                    fields[start + offset].shape = add(field.shape)
                }
            case let .either(choices):
                let start = options.count
                node = Node(kind: .either, first: Int32(start), count: Int32(choices.count))
                options.append(contentsOf: repeatElement(-1, count: choices.count))
                for (offset, option) in choices.enumerated() {
                    options[start + offset] = add(option)
                }
            }
            nodes[index] = node
            return Int32(index)
        }
    }
}
