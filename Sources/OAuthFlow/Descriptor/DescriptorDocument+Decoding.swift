import Foundation

extension DescriptorDocument {
    /// Decodes a node tree that has passed the schema check.
    ///
    /// `ProviderDescriptor` and its parts build themselves from ``PlainObject``s (`init(plain:)`),
    /// which read the tree in place, guided by the schema laid out flat (``ShapeTable``), both by
    /// index: a mapping is never copied into a dictionary, no node or shape is made or copied for a
    /// value, and only the values read are turned into plain ``JSONValue``s. Their `Decodable`
    /// conformances go the same way, over a dictionary, so there is one statement of each default.
    /// Going through `Decodable` instead cost a fifth of reading a descriptor (keyed containers
    /// instantiated by name, each a search of the binary's protocol conformances on first use),
    /// and a round trip through `JSONSerialization` and `JSONDecoder` before that cost as much
    /// again (see Docs/benchmarks.md). The descriptor records `sourcePath` as the file it came from. `keyFields` are what
    /// the schema check against ``ShapeTable/descriptor`` found the tree's keys to be (``SchemaValidator/keyFields``),
    /// read instead of searching for each key's name again; a key without one is searched for.
    static func decode(_ root: YAMLNode, sourcePath: String, keyFields: [ShapeTable.KeyField] = []) throws -> ProviderDescriptor {
        guard root.kind == .mapping else { throw PlainObject.mismatch("a mapping", at: []) }
        let shapes = ShapeTable.descriptor
        return try ProviderDescriptor(
            plain: PlainObject(tree: root.tree, node: root.index, shapes: shapes, shape: shapes.root, path: [], keyFields: keyFields),
            sourcePath: sourcePath)
    }

    /// Decodes a resources file's tree that has passed the schema check.
    static func decodeResources(_ root: YAMLNode) throws -> [ProviderDescriptor.ResourceTemplate] {
        guard root.kind == .sequence else { throw PlainObject.mismatch("a list", at: []) }
        let shapes = ShapeTable.resources
        let item = Int(shapes.nodes[shapes.root].first)
        return try root.items.enumerated().map { index, node in
            guard node.kind == .mapping else { throw PlainObject.mismatch("a mapping", at: [String(index)]) }
            return try ProviderDescriptor.ResourceTemplate(
                plain: PlainObject(tree: root.tree, node: node.index, shapes: shapes, shape: item, path: [String(index)]))
        }
    }

    /// The plain value of the node at `node` of `tree`, read as the shape at `shape` of `shapes` has it.
    static func plainValue(_ tree: YAMLTree, _ node: Int, _ shapes: ShapeTable, _ shape: Int) -> JSONValue {
        let entry = tree.entries[node]
        let spec = shapes.nodes[shape]
        switch (entry.kind, spec.kind) {
        case (.mapping, .object):
            var result: [String: JSONValue] = [:]
            let first = Int(entry.firstChild)
            for position in stride(from: first, to: first + Int(entry.childCount), by: 2) {
                guard let name = tree.scalarText(Int(tree.children[position])),
                    let field = shapes.field(named: name, in: spec, from: 0)
                else { continue }
                let fieldShape = Int(shapes.fields[Int(spec.first) + field].shape)
                result[name] = plainValue(tree, Int(tree.children[position + 1]), shapes, fieldShape)
            }
            return .object(result)
        case (.mapping, .map):
            var result: [String: JSONValue] = [:]
            let first = Int(entry.firstChild)
            for position in stride(from: first, to: first + Int(entry.childCount), by: 2) {
                if let name = tree.scalarText(Int(tree.children[position])) {
                    result[name] = plainValue(tree, Int(tree.children[position + 1]), shapes, Int(spec.first))
                }
            }
            return .object(result)
        case (.sequence, .list):
            let first = Int(entry.firstChild)
            return .array((first..<first + Int(entry.childCount)).map { plainValue(tree, Int(tree.children[$0]), shapes, Int(spec.first)) })
        case (.scalar, .boolean):
            return .bool(tree.withScalarText(node, ScalarTyping.bool(bytes:)).flatMap { $0 } ?? false)
        case (.scalar, .integer):
            return .number(Double(Int(tree.scalarText(node) ?? "") ?? 0))
        case (.scalar, .either):
            if entry.tag == .int, let value = Int(tree.scalarText(node) ?? ""),
                shapes.options[Int(spec.first)..<Int(spec.first) + Int(spec.count)].contains(where: { shapes.nodes[Int($0)].kind == .integer })
            {
                return .number(Double(value))
            }
            return .string(tree.scalarText(node) ?? "")
        case (.scalar, _):
            return .string(tree.scalarText(node) ?? "")
        case (.mapping, .either), (.sequence, .either):
            // The option of the node's kind (a mapping is read as the object or map option, a sequence as the list one).
            let options = shapes.options[Int(spec.first)..<Int(spec.first) + Int(spec.count)]
            let fitting = options.first { option in
                switch shapes.nodes[Int(option)].kind {
                case .object, .map: entry.kind == .mapping
                case .list: entry.kind == .sequence
                default: false
                }
            }
            return fitting.map { plainValue(tree, node, shapes, Int($0)) } ?? .null
        default:
            return .null
        }
    }
}

extension ShapeTable.Kind {
    /// Whether a scalar of this kind reads as its text when decoded (a `.string` plain value).
    var readsAsText: Bool {
        switch self {
        case .boolean, .integer, .either, .object, .map, .list: false
        case .string, .urlTemplate, .choice: true
        }
    }

    /// Whether values of this kind are mappings read key by key (`.object` or `.map`).
    var isMapping: Bool { self == .object || self == .map }
}
