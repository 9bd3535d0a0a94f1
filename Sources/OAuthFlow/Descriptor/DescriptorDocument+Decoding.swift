import Foundation

extension DescriptorDocument {
    /// Decodes a node tree that has passed the schema check.
    ///
    /// The tree is read, guided by the schema, into ``PlainValue``s, which a small
    /// `Decoder` hands to `ProviderDescriptor`'s `Decodable` conformance. A round trip
    /// through `JSONSerialization` and `JSONDecoder` cost a fifth of reading a
    /// descriptor in bridging and dynamic casts (see Docs/benchmarks.md).
    static func decode(_ root: YAMLNode) throws -> ProviderDescriptor {
        try ProviderDescriptor(from: PlainValueDecoder(plainValue(root, .object(DescriptorSchema.fields)), codingPath: []))
    }

    private static func plainValue(_ node: YAMLNode, _ shape: DescriptorSchema.Shape) -> PlainValue {
        switch (node.kind, shape) {
        case let (.mapping, .object(fields)):
            var result: [String: PlainValue] = [:]
            for (key, value) in node.pairs {
                guard let name = key.string, let field = fields.first(where: { $0.name == name }) else { continue }
                result[name] = plainValue(value, field.shape)
            }
            return .object(result)
        case let (.mapping, .map(valueShape)):
            var result: [String: PlainValue] = [:]
            for (key, value) in node.pairs {
                if let name = key.string { result[name] = plainValue(value, valueShape) }
            }
            return .object(result)
        case let (.sequence, .list(itemShape)):
            return .list(node.items.map { plainValue($0, itemShape) })
        case (.scalar, .boolean):
            return .bool(["true", "yes", "on"].contains((node.string ?? "").lowercased()))
        case (.scalar, .integer):
            return .int(Int(node.string ?? "") ?? 0)
        case let (.scalar, .either(shapes)):
            if node.tag == .int, let value = Int(node.string ?? ""),
               shapes.contains(where: { if case .integer = $0 { true } else { false } }) {
                return .int(value)
            }
            return .string(node.string ?? "")
        case (.scalar, _):
            return .string(node.string ?? "")
        default:
            return .null
        }
    }
}

/// A descriptor value after the schema check: what `Decodable` types are built from.
enum PlainValue {
    case string(String)
    case int(Int)
    case bool(Bool)
    case list([PlainValue])
    case object([String: PlainValue])
    case null

    var kind: String {
        switch self {
        case .string: "a string"
        case .int: "an integer"
        case .bool: "a boolean"
        case .list: "a list"
        case .object: "a mapping"
        case .null: "null"
        }
    }
}

/// Decodes `Decodable` types from a ``PlainValue``, with the coding path in every error.
struct PlainValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: PlainValue
    /// The path to the container this value is in, and its key there: a child shares its
    /// parent's array instead of allocating a longer one, as errors are rare.
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    init(_ value: PlainValue, codingPath: [any CodingKey]) {
        self.value = value
        parentPath = codingPath
        key = nil
    }

    fileprivate init(_ value: PlainValue, in parentPath: [any CodingKey], at key: any CodingKey) {
        self.value = value
        self.parentPath = parentPath
        self.key = key
    }

    func mismatch(_ expected: Any.Type) -> DecodingError {
        .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.kind)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(object) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(KeyedContainer(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .list(items) = value else { throw mismatch([Any].self) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Single value

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case let .bool(bool) = value else { throw mismatch(type) }
        return bool
    }

    func decode(_ type: String.Type) throws -> String {
        guard case let .string(string) = value else { throw mismatch(type) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case let .int(int) = value else { throw mismatch(type) }
        return Double(int)
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    private func integer<T: FixedWidthInteger>() throws -> T {
        guard case let .int(int) = value, let exact = T(exactly: int) else { throw mismatch(T.self) }
        return exact
    }

    // MARK: Containers

    private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: PlainValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func child(_ key: Key) throws -> PlainValueDecoder {
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no `\(key.stringValue)`"))
            }
            return PlainValueDecoder(value, in: codingPath, at: key)
        }

        /// One lookup instead of the default's three (`contains`, `decodeNil`, `decode`).
        private func present(_ key: Key) -> PlainValueDecoder? {
            guard let value = object[key.stringValue] else { return nil }
            if case .null = value { return nil }
            return PlainValueDecoder(value, in: codingPath, at: key)
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key)?.decode(type) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key)?.decode(type) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key)?.decode(type) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try present(key).map { try T(from: $0) } }

        func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: child(key)) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            PlainValueDecoder(.object(object), codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }

    private struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [PlainValue]
        let codingPath: [any CodingKey]
        private(set) var currentIndex = 0

        init(items: [PlainValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private struct Index: CodingKey {
            let intValue: Int?
            var stringValue: String { "\(intValue ?? 0)" }
            init(_ index: Int) { intValue = index }
            init?(stringValue: String) { return nil }
            init?(intValue: Int) { self.intValue = intValue }
        }

        private mutating func next() throws -> PlainValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "the list has no more items"))
            }
            defer { currentIndex += 1 }
            return PlainValueDecoder(items[currentIndex], in: codingPath, at: Index(currentIndex))
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, case .null = items[currentIndex] else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }
}
