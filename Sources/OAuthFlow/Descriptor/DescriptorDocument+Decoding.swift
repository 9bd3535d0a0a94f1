import Foundation

extension DescriptorDocument {
    /// Decodes a node tree that has passed the schema check.
    ///
    /// `ProviderDescriptor` and its parts build themselves from ``PlainObject``s (`init(plain:)`),
    /// which read the tree in place, guided by the schema: a mapping is never copied into a
    /// dictionary, and only the values read are turned into plain ``JSONValue``s. Their
    /// `Decodable` conformances go the same way, over a dictionary, so there is one statement of
    /// each default. Going through `Decodable` instead cost a fifth of reading a descriptor
    /// (keyed containers instantiated by name, each a search of the binary's protocol
    /// conformances on first use), and a round trip through `JSONSerialization` and
    /// `JSONDecoder` before that cost as much again (see Docs/benchmarks.md).
    static func decode(_ root: YAMLNode) throws -> ProviderDescriptor {
        guard root.kind == .mapping else { throw PlainObject.mismatch("a mapping", at: []) }
        return try ProviderDescriptor(plain: PlainObject(node: root, shape: .object(DescriptorSchema.fields), path: []))
    }

    /// Decodes a resources file's tree that has passed the schema check.
    static func decodeResources(_ root: YAMLNode) throws -> [ProviderDescriptor.ResourceTemplate] {
        guard root.kind == .sequence else { throw PlainObject.mismatch("a list", at: []) }
        let shape = DescriptorSchema.Shape.object(DescriptorSchema.resourceFields)
        return try root.items.enumerated().map { index, item in
            guard item.kind == .mapping else { throw PlainObject.mismatch("a mapping", at: [String(index)]) }
            return try ProviderDescriptor.ResourceTemplate(plain: PlainObject(node: item, shape: shape, path: [String(index)]))
        }
    }

    static func plainValue(_ node: YAMLNode, _ shape: DescriptorSchema.Shape) -> JSONValue {
        switch (node.kind, shape) {
        case let (.mapping, .object(fields)):
            var result: [String: JSONValue] = [:]
            for (key, value) in node.pairs {
                guard let name = key.string, let field = fields.first(where: { $0.name == name }) else { continue }
                result[name] = plainValue(value, field.shape)
            }
            return .object(result)
        case let (.mapping, .map(valueShape)):
            var result: [String: JSONValue] = [:]
            for (key, value) in node.pairs {
                if let name = key.string { result[name] = plainValue(value, valueShape) }
            }
            return .object(result)
        case let (.sequence, .list(itemShape)):
            return .array(node.items.map { plainValue($0, itemShape) })
        case (.scalar, .boolean):
            return .bool(node.withText(ScalarTyping.bool(bytes:)).flatMap { $0 } ?? false)
        case (.scalar, .integer):
            return .number(Double(Int(node.string ?? "") ?? 0))
        case let (.scalar, .either(shapes)):
            if node.tagCode == .int, let value = Int(node.string ?? ""),
                shapes.contains(where: { if case .integer = $0 { true } else { false } })
            {
                return .number(Double(value))
            }
            return .string(node.string ?? "")
        case (.scalar, _):
            return .string(node.string ?? "")
        default:
            return .null
        }
    }
}

/// One mapping of a descriptor as plain values, read by key; every reader throws
/// `DecodingError` when a value has the wrong type and answers nil when it is absent.
struct PlainObject {
    /// What a document's mappings are read from: a checked tree, with one table of field values
    /// and one table of places shared by all of its mappings, so that reading or copying a mapping
    /// allocates, retains and releases nothing of its own; or one mapping's dictionary of values.
    private final class Reader {
        /// The checked tree, or nil for a dictionary's values.
        let tree: YAMLTree?
        let values: [String: JSONValue]
        /// Where the first mapping read is.
        let rootPath: [String]
        /// For each object mapping read, from its offset: the field after the last one read, where
        /// the next search starts, then the node index of each field's value, or -1 where the
        /// mapping does not have it. One decoder reads it, on one thread, so no access can overlap
        /// another: no runtime check.
        @exclusivity(unchecked) var slots: [Int32] = []
        /// Where each mapping read is, for errors: its parent's place (-1 for the first, at
        /// `rootPath`) and up to two names more (a key, an item's index or a map's name), spelled out
        /// as a path only when an error asks.
        @exclusivity(unchecked) var places: [(parent: Int32, first: String?, second: String?)] = []

        init(tree: YAMLTree?, values: [String: JSONValue] = [:], rootPath: [String]) {
            self.tree = tree
            self.values = values
            self.rootPath = rootPath
            places = [(-1, nil, nil)]
            if tree != nil {
                slots.reserveCapacity(256)
                places.reserveCapacity(64)
            }
        }

        /// Records a mapping read under the one at `parent`; answers its place.
        func place(under parent: Int, _ names: (String?, String?)) -> Int {
            places.append((Int32(parent), names.0, names.1))
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

        /// Finds an object mapping's values by field in one pass over its keys, so that reading a
        /// key (present or not) costs a search of the fields, not of the mapping too; answers where
        /// they start. Read from the tree's tables and bytes: no node is made, so nothing is retained.
        func table(_ node: Int, fields: [DescriptorSchema.Field]) -> Int {
            guard let tree else { return -1 }
            let start = slots.count
            slots.append(contentsOf: repeatElement(-1, count: fields.count + 1))
            slots[start] = 0
            let entry = tree.entries[node]
            let first = Int(entry.firstChild), end = first + Int(entry.childCount)
            tree.text.withUnsafeBufferPointer { text in
                var next = 0
                for position in stride(from: first, to: end, by: 2) {
                    let key = tree.entries[Int(tree.children[position])]
                    guard key.kind == .scalar,
                        let field = DescriptorSchema.Field.index(ofName: YAMLTree.slice(text, key), in: fields, from: next)
                    else { continue }
                    slots[start + 1 + field] = tree.children[position + 1]
                    next = field + 1
                }
            }
            return start
        }

        /// The node index and field index of the field named `name`, if the schema declares it and
        /// the mapping holds it.
        func child(_ name: String, _ fields: [DescriptorSchema.Field], table: Int) -> (node: Int, field: Int)? {
            guard let field = DescriptorSchema.Field.index(of: name, in: fields, from: Int(slots[table])) else { return nil }
            slots[table] = Int32(field + 1)
            let value = slots[table + 1 + field]
            return value < 0 ? nil : (Int(value), field)
        }
    }

    /// Where the values are: the reader (a tree, or a dictionary's values) and, for a tree's
    /// mapping, its node: an `.object` with its `fields` and its place in the reader's table, or a
    /// `.map` with its `valueShape`. Stored flat rather than as an enum of sources: a read borrows
    /// them in place, where matching an enum's payload copied it (a retain and release a field).
    private let reader: Reader
    private let node: Int
    private let fields: [DescriptorSchema.Field]
    private let valueShape: DescriptorSchema.Shape?
    private let table: Int
    /// Where the mapping is, for errors: its entry in the reader's places.
    private let place: Int

    /// Where the mapping is, for errors.
    var path: [String] { reader.path(place) }

    init(_ values: [String: JSONValue], path: [String]) {
        reader = Reader(tree: nil, values: values, rootPath: path)
        node = -1
        fields = []
        valueShape = nil
        table = -1
        place = 0
    }

    /// A mapping of a checked tree, read in place.
    init(node: YAMLNode, shape: DescriptorSchema.Shape, path: [String]) {
        self.init(node: node, shape: shape, reader: Reader(tree: node.tree, rootPath: path), place: 0)
    }

    /// A mapping of the reader's tree, found under the mapping at `parent` by `names`.
    private init(node: YAMLNode, shape: DescriptorSchema.Shape, reader: Reader, under parent: Int, names: (String?, String?)) {
        self.init(node: node, shape: shape, reader: reader, place: reader.place(under: parent, names))
    }

    private init(node: YAMLNode, shape: DescriptorSchema.Shape, reader: Reader, place: Int) {
        self.reader = reader
        self.node = node.index
        switch shape {
        case let .object(fields):
            self.fields = fields
            valueShape = nil
            table = reader.table(node.index, fields: fields)
        case let .map(valueShape):
            fields = []
            self.valueShape = valueShape
            table = -1
        default:
            fields = []
            valueShape = nil
            table = -1
        }
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

    private func value<K: CodingKey>(_ key: K) -> JSONValue? {
        let found: JSONValue?
        if reader.tree == nil {
            found = reader.values[key.stringValue]
        } else {
            found = child(key.stringValue).map { DescriptorDocument.plainValue($0, $1) }
        }
        switch found {
        case nil, .null?: return nil
        case let value?: return value
        }
    }

    /// The value under `name` in a checked mapping, with the shape the schema gives it; nil for
    /// a key the shape does not declare, as a dictionary built from the tree would leave it out.
    private func child(_ name: String) -> (YAMLNode, DescriptorSchema.Shape)? {
        guard let tree = reader.tree else { return nil }
        if table >= 0 {
            return reader.child(name, fields, table: table).map { (YAMLNode(tree: tree, index: $0.node), fields[$0.field].shape) }
        }
        guard let valueShape else { return nil }
        return YAMLNode(tree: tree, index: node)[name].map { ($0, valueShape) }
    }

    /// What a tree holds under `key`: `.absent` answers nil at once, without the search
    /// ``value(_:)`` would repeat.
    private enum Nested {
        case notATree, absent
        case node(YAMLNode, DescriptorSchema.Shape)
    }

    /// The node under `key`, when the mapping is read from a tree.
    private func nested<K: CodingKey>(_ key: K) -> Nested {
        guard reader.tree != nil else { return .notATree }
        guard let (child, childShape) = child(key.stringValue) else { return .absent }
        return .node(child, childShape)
    }

    /// `expected` is made only for an error: a type's name in it (`\(E.self)`) costs a demangling.
    private func read<K: CodingKey, T>(_ key: K, _ expected: @autoclosure () -> String, _ convert: (JSONValue) -> T?) throws -> T? {
        guard let value = value(key) else { return nil }
        guard let converted = convert(value) else { throw Self.mismatch(expected(), at: path + [key.stringValue]) }
        return converted
    }

    /// A value that must be there.
    func required<K: CodingKey, T>(_ key: K, _ reader: (K) throws -> T?) throws -> T {
        guard let value = try reader(key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: path.map(Key.init(stringValue:)),
                    debugDescription: "no `\(key.stringValue)`"))
        }
        return value
    }

    func string<K: CodingKey>(_ key: K) throws -> String? {
        switch treeText(key) {
        case .absent: return nil
        case let .text(text): return text
        case .other: return try read(key, "a string") { if case let .string(text) = $0 { text } else { nil } }
        }
    }

    /// What a tree's mapping holds under `key` when it is a scalar read as text: the `.string` that
    /// ``value(_:)`` would make of it, without making it (`.other` for anything else, read that way).
    private enum TreeText {
        case absent, text(String), other
    }

    private func treeText<K: CodingKey>(_ key: K) -> TreeText {
        // An object's field: read by index from the tree's tables, no node or shape copied out.
        if let tree = reader.tree, table >= 0 {
            guard let (node, field) = reader.child(key.stringValue, fields, table: table) else { return .absent }
            guard fields[field].readsAsText, let text = tree.scalarText(node) else { return .other }
            return .text(text)
        }
        switch nested(key) {
        case .notATree: return .other
        case .absent: return .absent
        case let .node(node, shape):
            guard node.kind == .scalar, shape.isText, let text = node.string else { return .other }
            return .text(text)
        }
    }

    func int<K: CodingKey>(_ key: K) throws -> Int? {
        try read(key, "an integer") { if case let .number(number) = $0 { Int(exactly: number) } else { nil } }
    }

    func bool<K: CodingKey>(_ key: K) throws -> Bool? {
        switch nested(key) {
        case .absent: return nil
        case let .node(node, .boolean) where node.kind == .scalar:
            return node.withText(ScalarTyping.bool(bytes:)).flatMap { $0 } ?? false
        default: return try read(key, "a boolean") { if case let .bool(flag) = $0 { flag } else { nil } }
        }
    }

    func strings<K: CodingKey>(_ key: K) throws -> [String]? {
        switch nested(key) {
        // An absent key is answered at once: ``read(_:_:_:)`` would search the fields for it again.
        case .absent: return nil
        // A checked list of text-shaped scalars is read straight from the tree.
        case let .node(node, .list(itemShape)) where node.kind == .sequence && itemShape.isText:
            var texts: [String] = []
            texts.reserveCapacity(node.items.count)
            for item in node.items {
                guard item.kind == .scalar, let text = item.string else { break }
                texts.append(text)
            }
            if texts.count == node.items.count { return texts }
        default: break
        }
        return try read(key, "a list of strings") { value in
            guard case let .array(items) = value else { return nil }
            let texts = items.compactMap { if case let .string(text) = $0 { text } else { nil } }
            return texts.count == items.count ? texts : nil
        }
    }

    /// A mapping of strings to strings (headers, parameters).
    func stringMap<K: CodingKey>(_ key: K) throws -> [String: String]? {
        switch nested(key) {
        case .absent: return nil
        case let .node(node, .map(valueShape)) where node.kind == .mapping && valueShape.isText:
            var texts: [String: String] = [:]
            texts.reserveCapacity(node.pairs.count)
            var complete = true
            for (name, value) in node.pairs {
                guard let name = name.string else { continue }
                guard value.kind == .scalar, let text = value.string else {
                    complete = false
                    break
                }
                texts[name] = text
            }
            if complete { return texts }
        default: break
        }
        return try read(key, "a mapping of strings") { value in
            guard case let .object(entries) = value else { return nil }
            let texts = entries.compactMapValues { if case let .string(text) = $0 { text } else { nil } }
            return texts.count == entries.count ? texts : nil
        }
    }

    /// One of a fixed set of words.
    func choice<K: CodingKey, E: RawRepresentable>(_ key: K, as type: E.Type = E.self) throws -> E? where E.RawValue == String {
        switch treeText(key) {
        case .absent: return nil
        case let .text(text):
            guard let value = E(rawValue: text) else { throw Self.mismatch("one of \(E.self)'s values", at: path + [key.stringValue]) }
            return value
        case .other:
            return try read(key, "one of \(E.self)'s values") { if case let .string(text) = $0 { E(rawValue: text) } else { nil } }
        }
    }

    func choices<K: CodingKey, E: RawRepresentable>(_ key: K, as type: E.Type = E.self) throws -> [E]? where E.RawValue == String {
        guard let words = try strings(key) else { return nil }
        let values = words.compactMap(E.init(rawValue:))
        guard values.count == words.count else { throw Self.mismatch("a list of \(E.self)'s values", at: path + [key.stringValue]) }
        return values
    }

    /// A nested mapping, built by `make`.
    func object<K: CodingKey, T>(_ key: K, _ make: (PlainObject) throws -> T) throws -> T? {
        switch nested(key) {
        case .absent: return nil
        case let .node(node, shape) where node.kind == .mapping && shape.isMapping:
            return try make(PlainObject(node: node, shape: shape, reader: reader, under: place, names: (key.stringValue, nil)))
        default: break
        }
        guard let nested = try read(key, "a mapping", { if case let .object(entries) = $0 { entries } else { nil } }) else { return nil }
        return try make(PlainObject(nested, path: path + [key.stringValue]))
    }

    /// A list of mappings, each built by `make`.
    func objects<K: CodingKey, T>(_ key: K, _ make: (PlainObject) throws -> T) throws -> [T]? {
        switch nested(key) {
        case .absent: return nil
        case let .node(node, .list(itemShape)) where node.kind == .sequence && itemShape.isMapping:
            return try node.items.enumerated().map { index, item in
                guard item.kind == .mapping else { throw Self.mismatch("a mapping", at: path + [key.stringValue, String(index)]) }
                return try make(
                    PlainObject(node: item, shape: itemShape, reader: reader, under: place, names: (key.stringValue, String(index))))
            }
        default: break
        }
        guard let items = try read(key, "a list", { if case let .array(items) = $0 { items } else { nil } }) else { return nil }
        return try items.enumerated().map { index, item in
            guard case let .object(entries) = item else { throw Self.mismatch("a mapping", at: path + [key.stringValue, String(index)]) }
            return try make(PlainObject(entries, path: path + [key.stringValue, String(index)]))
        }
    }

    /// A mapping of names to mappings, each built by `make`.
    func objectMap<K: CodingKey, T>(_ key: K, _ make: (PlainObject) throws -> T) throws -> [String: T]? {
        switch nested(key) {
        case .absent: return nil
        case let .node(node, .map(valueShape)) where node.kind == .mapping && valueShape.isMapping:
            var result: [String: T] = [:]
            result.reserveCapacity(node.pairs.count)
            for (nameNode, item) in node.pairs {
                guard let name = nameNode.string else { continue }
                guard item.kind == .mapping else { throw Self.mismatch("a mapping", at: path + [key.stringValue, name]) }
                result[name] = try make(
                    PlainObject(node: item, shape: valueShape, reader: reader, under: place, names: (key.stringValue, name)))
            }
            return result
        default: break
        }
        guard let entries = try read(key, "a mapping", { if case let .object(entries) = $0 { entries } else { nil } }) else { return nil }
        var result: [String: T] = [:]
        for (name, item) in entries {
            guard case let .object(fields) = item else { throw Self.mismatch("a mapping", at: path + [key.stringValue, name]) }
            result[name] = try make(PlainObject(fields, path: path + [key.stringValue, name]))
        }
        return result
    }

    /// The raw value under a key, for values of more than one shape.
    func raw<K: CodingKey>(_ key: K) -> JSONValue? { value(key) }
}

extension DescriptorSchema.Shape {
    /// Whether values of this shape are mappings read key by key (`.object` or `.map`).
    fileprivate var isMapping: Bool {
        switch self {
        case .object, .map: true
        default: false
        }
    }
}
