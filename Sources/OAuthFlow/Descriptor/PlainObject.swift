import Foundation

/// One mapping of a descriptor as plain values, read by key; every reader throws
/// `DecodingError` when a value has the wrong type and answers nil when it is absent.
struct PlainObject {
    /// What a document's mappings are read from: a checked tree and the ``ShapeTable`` it was
    /// checked against, with one table of field values and one table of places shared by all of its
    /// mappings, so that reading or copying a mapping allocates, retains and releases nothing of its
    /// own; or one mapping's dictionary of values.
    ///
    /// The tree is read here, by index through its tables and the shape table's: a value is a node
    /// index and a shape index, so no node holding the tree is made and no shape is copied out for it.
    private final class Reader {
        /// The checked tree, or nil for a dictionary's values.
        let tree: YAMLTree?
        /// The shapes the tree was checked against.
        let shapes: ShapeTable
        let values: [String: JSONValue]
        /// Where the first mapping read is.
        let rootPath: [String]
        /// What the schema check found the tree's keys to be, by their positions in its child table; empty when the
        /// tree was not checked against ``shapes`` by the caller (each key's name is then searched for).
        let keyFields: [ShapeTable.KeyField]
        /// For each object mapping read, from its offset: the field after the last one read, where
        /// the next search starts, then the node index of each field's value, or -1 where the
        /// mapping does not have it. One decoder reads it, on one thread, so no access can overlap
        /// another: no runtime check.
        @exclusivity(unchecked) var slots: [Int32] = []
        /// Where each mapping read is, for errors: its parent's place (-1 for the first, at
        /// `rootPath`) and up to two names more (a key, an item's index or a map's name), spelled out
        /// as a path only when an error asks.
        @exclusivity(unchecked) var places: [Place] = []

        /// One entry of ``places``. A struct, not a tuple: an array of tuples is destroyed element by element
        /// through the runtime's generic tuple witness (7.6 million instructions over 1,000 descriptors).
        struct Place {
            var parent: Int32
            var first: String?
            var second: String?
        }

        init(
            tree: YAMLTree?, shapes: ShapeTable, values: [String: JSONValue] = [:], rootPath: [String], keyFields: [ShapeTable.KeyField] = []
        ) {
            self.tree = tree
            self.shapes = shapes
            self.values = values
            self.rootPath = rootPath
            self.keyFields = keyFields
            places = [Place(parent: -1, first: nil, second: nil)]
            if tree != nil {
                slots.reserveCapacity(256)
                places.reserveCapacity(64)
            }
        }

        /// Records a mapping read under the one at `parent`; answers its place.
        func place(under parent: Int, _ names: (String?, String?)) -> Int {
            places.append(Place(parent: Int32(parent), first: names.0, second: names.1))
            return places.count - 1
        }

        /// The key path of the mapping at `place`.
        func path(_ place: Int) -> [String] {
            var names: [String] = []
            var current = place
            while current >= 0 {
                let entry = places[current]
                if let second = entry.second { names.append(second) }
                if let first = entry.first { names.append(first) }
                current = Int(entry.parent)
            }
            return rootPath + names.reversed()
        }

        /// Finds the values of the object mapping at `node` by the fields of the object shape at
        /// `object`, in one pass over its keys, so that reading a key (present or not) costs a search
        /// of the fields, not of the mapping too; answers where they start. Read from the tree's
        /// tables and bytes: no node is made, so nothing is retained. A key the schema check found
        /// in this object's shape (``keyFields``) is not searched for again.
        func table(_ node: Int, object: Int) -> Int {
            guard let tree else { return -1 }
            let spec = shapes.nodes[object]
            let start = slots.count
            slots.append(contentsOf: repeatElement(-1, count: Int(spec.count) + 1))
            slots[start] = 0
            let entry = tree.entries[node]
            let first = Int(entry.firstChild), end = first + Int(entry.childCount)
            tree.text.withUnsafeBufferPointer { text in
                var next = 0
                for position in stride(from: first, to: end, by: 2) {
                    if position < keyFields.count, keyFields[position].shape == Int32(object) {
                        let field = Int(keyFields[position].field)
                        if field >= 0 { slots[start + 1 + field] = tree.children[position + 1] }
                        continue
                    }
                    let key = tree.entries[Int(tree.children[position])]
                    guard key.kind == .scalar, let field = shapes.field(named: YAMLTree.slice(text, key), in: spec, from: next)
                    else { continue }
                    slots[start + 1 + field] = tree.children[position + 1]
                    next = field + 1
                }
            }
            return start
        }

        /// The node index and shape index of the value under `name` in the mapping at `node`, read as
        /// the shape at `shape` has it: an object's field by its `table`, a map's entry by its key; nil
        /// when the mapping does not hold it, or holds a key the shape does not declare, as a
        /// dictionary built from the tree would leave it out.
        func child(_ name: String, node: Int, shape: Int, table: Int) -> (node: Int, shape: Int)? {
            guard let tree else { return nil }
            let spec = shapes.nodes[shape]
            if table >= 0 {
                guard let field = shapes.field(named: name, in: spec, from: Int(slots[table])) else { return nil }
                slots[table] = Int32(field + 1)
                let value = slots[table + 1 + field]
                return value < 0 ? nil : (Int(value), Int(shapes.fields[Int(spec.first) + field].shape))
            }
            guard spec.kind == .map, let value = tree.value(in: node, forKey: name) else { return nil }
            return (value, Int(spec.first))
        }

        /// The value under `name`, as a plain value; nil when absent or null.
        func value(_ name: String, node: Int, shape: Int, table: Int) -> JSONValue? {
            let found: JSONValue?
            if let tree {
                found = child(name, node: node, shape: shape, table: table).map { DescriptorDocument.plainValue(tree, $0.node, shapes, $0.shape) }
            } else {
                found = values[name]
            }
            switch found {
            case nil, .null?: return nil
            case let value?: return value
            }
        }

        /// What the mapping holds under `name` when it is a scalar read as text (``TreeText``).
        func text(_ name: String, node: Int, shape: Int, table: Int) -> TreeText {
            guard let tree else { return .other }
            guard let (value, valueShape) = child(name, node: node, shape: shape, table: table) else { return .absent }
            guard shapes.nodes[valueShape].kind.readsAsText, let text = tree.scalarText(value) else { return .other }
            return .text(text)
        }

        /// A checked boolean under `name`, read from its bytes (``TreeValue``).
        func bool(_ name: String, node: Int, shape: Int, table: Int) -> TreeValue<Bool> {
            guard let tree else { return .other }
            guard let (value, valueShape) = child(name, node: node, shape: shape, table: table) else { return .absent }
            guard shapes.nodes[valueShape].kind == .boolean, tree.entries[value].kind == .scalar else { return .other }
            return .value(tree.withScalarText(value, ScalarTyping.bool(bytes:)).flatMap { $0 } ?? false)
        }

        /// A checked list of text-shaped scalars under `name`, read straight from the tree (``TreeValue``).
        func strings(_ name: String, node: Int, shape: Int, table: Int) -> TreeValue<[String]> {
            guard let tree else { return .other }
            guard let (value, valueShape) = child(name, node: node, shape: shape, table: table) else { return .absent }
            let spec = shapes.nodes[valueShape], entry = tree.entries[value]
            guard spec.kind == .list, entry.kind == .sequence, shapes.nodes[Int(spec.first)].kind.readsAsText else { return .other }
            let count = Int(entry.childCount), first = Int(entry.firstChild)
            var texts: [String] = []
            texts.reserveCapacity(count)
            for position in first..<first + count {
                guard let text = tree.scalarText(Int(tree.children[position])) else { return .other }
                texts.append(text)
            }
            return .value(texts)
        }

        /// A checked mapping of names to text-shaped scalars under `name`, read straight from the tree (``TreeValue``).
        func stringMap(_ name: String, node: Int, shape: Int, table: Int) -> TreeValue<[String: String]> {
            guard let tree else { return .other }
            guard let (value, valueShape) = child(name, node: node, shape: shape, table: table) else { return .absent }
            let spec = shapes.nodes[valueShape], entry = tree.entries[value]
            guard spec.kind == .map, entry.kind == .mapping, shapes.nodes[Int(spec.first)].kind.readsAsText else { return .other }
            let first = Int(entry.firstChild), end = first + Int(entry.childCount)
            var texts: [String: String] = [:]
            texts.reserveCapacity(Int(entry.childCount) / 2)
            for position in stride(from: first, to: end, by: 2) {
                guard let key = tree.scalarText(Int(tree.children[position])) else { continue }
                guard let text = tree.scalarText(Int(tree.children[position + 1])) else { return .other }
                texts[key] = text
            }
            return .value(texts)
        }

        /// Whether the object mapping whose field values start at `table`, read as the object shape at `shape`, lacks the
        /// field at `field` of that shape, which must be named `name`; false whenever that cannot be said from the table
        /// (no tree, a shape of other fields).
        func lacks(field: Int, named name: String, shape: Int, table: Int) -> Bool {
            guard table >= 0 else { return false }
            let spec = shapes.nodes[shape]
            guard field < Int(spec.count), shapes.names[Int(spec.first) + field] == name else { return false }
            return slots[table + 1 + field] < 0
        }

        /// The node and shape under `name`: an absent key is answered at once, without the search
        /// ``value(_:node:shape:table:)`` would repeat.
        func nested(_ name: String, node: Int, shape: Int, table: Int) -> Nested {
            guard tree != nil else { return .notATree }
            guard let (value, valueShape) = child(name, node: node, shape: shape, table: table) else { return .absent }
            return .node(value, valueShape)
        }

        /// The kind of the node at `node`; nil without a tree.
        func kind(of node: Int) -> YAMLTree.Kind? { tree?.entries[node].kind }

        /// The kind of the shape at `shape`.
        func kind(ofShape shape: Int) -> ShapeTable.Kind { shapes.nodes[shape].kind }

        /// The item shape of the list or map shape at `shape`.
        func itemShape(of shape: Int) -> Int { Int(shapes.nodes[shape].first) }

        /// The children of the collection at `node`: where they start in the tree's child table, and how many.
        func children(of node: Int) -> (first: Int, count: Int) {
            guard let tree else { return (0, 0) }
            let entry = tree.entries[node]
            return (Int(entry.firstChild), Int(entry.childCount))
        }

        /// The node index at `position` of the tree's child table.
        func child(at position: Int) -> Int {
            guard let tree else { return -1 }
            return Int(tree.children[position])
        }

        /// The text of the scalar at `node`, nil for a collection.
        func scalarText(_ node: Int) -> String? { tree?.scalarText(node) }
    }

    /// What a tree's mapping holds under a key when it is a scalar read as text: the `.string` that
    /// ``value(_:)`` would make of it, without making it (`.other` for anything else, read that way).
    fileprivate enum TreeText {
        case absent, text(String), other
    }

    /// What a tree's mapping holds under a key, read straight from the tree: `.other` when it is not of
    /// the expected kind (or not a tree), read by way of a plain value instead.
    fileprivate enum TreeValue<Value> {
        case absent, value(Value), other
    }

    /// What a tree holds under a key: `.absent` answers nil at once, without the search
    /// ``value(_:)`` would repeat; a value is its node index and shape index.
    fileprivate enum Nested {
        case notATree, absent
        case node(Int, Int)
    }

    /// Where the values are: the reader (a tree and its shapes, or a dictionary's values) and, for a
    /// tree's mapping, its node index, its shape's index in the reader's ``ShapeTable`` and, for an
    /// object, where its field values are in the reader's table. Integers only: a read copies
    /// nothing that is reference-counted but the reader.
    private let reader: Reader
    private let node: Int
    private let shape: Int
    private let table: Int
    /// Where the mapping is, for errors: its entry in the reader's places.
    private let place: Int

    /// Where the mapping is, for errors.
    var path: [String] { reader.path(place) }

    /// Whether the mapping certainly does not hold the field at `index` of its object shape, named `name` (a section's
    /// key, whose reader then has nothing to read); false when that cannot be told without the reader.
    func lacks(field index: Int, named name: String) -> Bool {
        reader.lacks(field: index, named: name, shape: shape, table: table)
    }

    init(_ values: [String: JSONValue], path: [String]) {
        reader = Reader(tree: nil, shapes: .placeholder, values: values, rootPath: path)
        node = -1
        shape = -1
        table = -1
        place = 0
    }

    /// The mapping at `node` of a checked tree, read in place as the shape at `shape` of `shapes` has it; `keyFields`
    /// are what a check of the tree against `shapes` found its keys to be (``SchemaValidator/keyFields``), if any.
    init(tree: YAMLTree, node: Int, shapes: ShapeTable, shape: Int, path: [String], keyFields: [ShapeTable.KeyField] = []) {
        self.init(node: node, shape: shape, reader: Reader(tree: tree, shapes: shapes, rootPath: path, keyFields: keyFields), place: 0)
    }

    /// A mapping of the reader's tree, found under the mapping at `parent` by `names`.
    private init(node: Int, shape: Int, reader: Reader, under parent: Int, names: (String?, String?)) {
        self.init(node: node, shape: shape, reader: reader, place: reader.place(under: parent, names))
    }

    private init(node: Int, shape: Int, reader: Reader, place: Int) {
        self.reader = reader
        self.node = node
        self.shape = shape
        table = reader.kind(ofShape: shape) == .object ? reader.table(node, object: shape) : -1
        self.place = place
    }

    /// A mapping decoded by any `Decoder` (a JSON descriptor, say).
    init(from decoder: any Decoder) throws {
        let path = decoder.codingPath.map(\.stringValue)
        guard case let .object(values) = try JSONValue(from: decoder) else {
            throw Self.mismatch("a mapping", at: path)
        }
        self.init(values, path: path)
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { Int(stringValue) }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { stringValue = String(intValue) }
    }

    static func mismatch(_ expected: String, at path: [String]) -> DecodingError {
        .typeMismatch(
            JSONValue.self,
            .init(
                codingPath: path.map(Key.init(stringValue:)),
                debugDescription: "expected \(expected) at `\(path.joined(separator: "."))`"))
    }

    // Each reader below is generic over its key only to read the key's name: the work is done once, by name, in a
    // function that is not generic (`@inline(never)`), where a copy of it specialized for each section's keys made the
    // decoding of one descriptor run through some sixty kilobytes of code, more than the processor's instruction cache
    // holds (Docs/benchmarks.md, "What the measurements decided").

    private func value(_ name: String) -> JSONValue? {
        reader.value(name, node: node, shape: shape, table: table)
    }

    /// `expected` is made only for an error: a type's name in it (`\(E.self)`) costs a demangling.
    private func read<T>(_ name: String, _ expected: @autoclosure () -> String, _ convert: (JSONValue) -> T?) throws -> T? {
        guard let value = value(name) else { return nil }
        guard let converted = convert(value) else { throw Self.mismatch(expected(), at: path + [name]) }
        return converted
    }

    /// A value that must be there.
    func required<K: CodingKey, T>(_ key: K, _ reader: (K) throws -> T?) throws -> T {
        guard let value = try reader(key) else { throw missing(key) }
        return value
    }

    /// The error for a required key that is absent.
    func missing<K: CodingKey>(_ key: K) -> DecodingError {
        .keyNotFound(key, .init(codingPath: path.map(Key.init(stringValue:)), debugDescription: "no `\(key.stringValue)`"))
    }

    func string<K: CodingKey>(_ key: K) throws -> String? { try string(named: key.stringValue) }

    @inline(never)
    private func string(named name: String) throws -> String? {
        switch reader.text(name, node: node, shape: shape, table: table) {
        case .absent: return nil
        case let .text(text): return text
        case .other: return try read(name, "a string") { if case let .string(text) = $0 { text } else { nil } }
        }
    }

    func int<K: CodingKey>(_ key: K) throws -> Int? { try int(named: key.stringValue) }

    @inline(never)
    private func int(named name: String) throws -> Int? {
        try read(name, "an integer") { if case let .number(number) = $0 { Int(exactly: number) } else { nil } }
    }

    func bool<K: CodingKey>(_ key: K) throws -> Bool? { try bool(named: key.stringValue) }

    @inline(never)
    private func bool(named name: String) throws -> Bool? {
        switch reader.bool(name, node: node, shape: shape, table: table) {
        case .absent: return nil
        case let .value(flag): return flag
        case .other: return try read(name, "a boolean") { if case let .bool(flag) = $0 { flag } else { nil } }
        }
    }

    func strings<K: CodingKey>(_ key: K) throws -> [String]? { try strings(named: key.stringValue) }

    @inline(never)
    private func strings(named name: String) throws -> [String]? {
        switch reader.strings(name, node: node, shape: shape, table: table) {
        // An absent key is answered at once: ``read(_:_:_:)`` would search the fields for it again.
        case .absent: return nil
        case let .value(texts): return texts
        case .other: break
        }
        return try read(name, "a list of strings") { value in
            guard case let .array(items) = value else { return nil }
            let texts = items.compactMap { if case let .string(text) = $0 { text } else { nil } }
            return texts.count == items.count ? texts : nil
        }
    }

    /// A mapping of strings to strings (headers, parameters).
    func stringMap<K: CodingKey>(_ key: K) throws -> [String: String]? { try stringMap(named: key.stringValue) }

    @inline(never)
    private func stringMap(named name: String) throws -> [String: String]? {
        switch reader.stringMap(name, node: node, shape: shape, table: table) {
        case .absent: return nil
        case let .value(texts): return texts
        case .other: break
        }
        return try read(name, "a mapping of strings") { value in
            guard case let .object(entries) = value else { return nil }
            let texts = entries.compactMapValues { if case let .string(text) = $0 { text } else { nil } }
            return texts.count == entries.count ? texts : nil
        }
    }

    /// One of a fixed set of words.
    func choice<K: CodingKey, E: RawRepresentable>(_ key: K, as type: E.Type = E.self) throws -> E? where E.RawValue == String {
        let name = key.stringValue
        guard let text = try word(named: name, expected: { "one of \(E.self)'s values" }) else { return nil }
        guard let value = E(rawValue: text) else { throw Self.mismatch("one of \(E.self)'s values", at: path + [name]) }
        return value
    }

    /// The text under `name` that a choice reads its word from; nil when absent. Anything but a string is refused as
    /// not `expected`.
    @inline(never)
    private func word(named name: String, expected: () -> String) throws -> String? {
        switch reader.text(name, node: node, shape: shape, table: table) {
        case .absent: return nil
        case let .text(text): return text
        case .other: return try read(name, expected()) { if case let .string(text) = $0 { text } else { nil } }
        }
    }

    func choices<K: CodingKey, E: RawRepresentable>(_ key: K, as type: E.Type = E.self) throws -> [E]? where E.RawValue == String {
        guard let words = try strings(named: key.stringValue) else { return nil }
        let values = words.compactMap(E.init(rawValue:))
        guard values.count == words.count else { throw Self.mismatch("a list of \(E.self)'s values", at: path + [key.stringValue]) }
        return values
    }

    /// A nested mapping, built by `make`.
    func object<K: CodingKey, T>(_ key: K, _ make: (PlainObject) throws -> T) throws -> T? {
        guard let nested = try object(named: key.stringValue) else { return nil }
        return try make(nested)
    }

    @inline(never)
    private func object(named name: String) throws -> PlainObject? {
        switch reader.nested(name, node: node, shape: shape, table: table) {
        case .absent: return nil
        case let .node(value, valueShape) where reader.kind(of: value) == .mapping && reader.kind(ofShape: valueShape).isMapping:
            return PlainObject(node: value, shape: valueShape, reader: reader, under: place, names: (name, nil))
        default: break
        }
        guard let nested = try read(name, "a mapping", { if case let .object(entries) = $0 { entries } else { nil } }) else { return nil }
        return PlainObject(nested, path: path + [name])
    }

    /// A list of mappings, each built by `make`.
    func objects<K: CodingKey, T>(_ key: K, _ make: (PlainObject) throws -> T) throws -> [T]? {
        var result: [T] = []
        guard try eachObject(named: key.stringValue, { result.append(try make($0)) }) else { return nil }
        return result
    }

    /// Hands each mapping of the list under `name` to `body`, in order; false when the key is absent.
    @inline(never)
    private func eachObject(named name: String, _ body: (PlainObject) throws -> Void) throws -> Bool {
        switch reader.nested(name, node: node, shape: shape, table: table) {
        case .absent: return false
        case let .node(value, valueShape) where reader.kind(of: value) == .sequence && reader.kind(ofShape: valueShape) == .list:
            let itemShape = reader.itemShape(of: valueShape)
            if reader.kind(ofShape: itemShape).isMapping {
                let (first, count) = reader.children(of: value)
                for index in 0..<count {
                    let item = reader.child(at: first + index)
                    guard reader.kind(of: item) == .mapping else { throw Self.mismatch("a mapping", at: path + [name, String(index)]) }
                    try body(PlainObject(node: item, shape: itemShape, reader: reader, under: place, names: (name, String(index))))
                }
                return true
            }
        default: break
        }
        guard let items = try read(name, "a list", { if case let .array(items) = $0 { items } else { nil } }) else { return false }
        for (index, item) in items.enumerated() {
            guard case let .object(entries) = item else { throw Self.mismatch("a mapping", at: path + [name, String(index)]) }
            try body(PlainObject(entries, path: path + [name, String(index)]))
        }
        return true
    }

    /// A mapping of names to mappings, each built by `make`.
    func objectMap<K: CodingKey, T>(_ key: K, _ make: (PlainObject) throws -> T) throws -> [String: T]? {
        var result: [String: T] = [:]
        guard try eachNamedObject(named: key.stringValue, { name, object in result[name] = try make(object) }) else { return nil }
        return result
    }

    /// Hands each name and mapping of the mapping under `name` to `body`; false when the key is absent.
    @inline(never)
    private func eachNamedObject(named name: String, _ body: (String, PlainObject) throws -> Void) throws -> Bool {
        switch reader.nested(name, node: node, shape: shape, table: table) {
        case .absent: return false
        case let .node(value, valueShape) where reader.kind(of: value) == .mapping && reader.kind(ofShape: valueShape) == .map:
            let itemShape = reader.itemShape(of: valueShape)
            if reader.kind(ofShape: itemShape).isMapping {
                let (first, count) = reader.children(of: value)
                for position in stride(from: first, to: first + count, by: 2) {
                    guard let entry = reader.scalarText(reader.child(at: position)) else { continue }
                    let item = reader.child(at: position + 1)
                    guard reader.kind(of: item) == .mapping else { throw Self.mismatch("a mapping", at: path + [name, entry]) }
                    try body(entry, PlainObject(node: item, shape: itemShape, reader: reader, under: place, names: (name, entry)))
                }
                return true
            }
        default: break
        }
        guard let entries = try read(name, "a mapping", { if case let .object(entries) = $0 { entries } else { nil } }) else { return false }
        for (entry, item) in entries {
            guard case let .object(fields) = item else { throw Self.mismatch("a mapping", at: path + [name, entry]) }
            try body(entry, PlainObject(fields, path: path + [name, entry]))
        }
        return true
    }

    /// The raw value under a key, for values of more than one shape.
    func raw<K: CodingKey>(_ key: K) -> JSONValue? { value(key.stringValue) }
}
