/// A value a descriptor section's key may hold, read from a mapping by the reader its type names: the section's
/// property type chooses how the key is read, so a section states each key once.
protocol SectionValue: Encodable {
    /// The value under `key` in `o`; nil when the key is absent; a positioned error when it has another shape.
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self?
}

extension String: SectionValue {
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self? { try o.string(key) }
}

extension Bool: SectionValue {
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self? { try o.bool(key) }
}

extension Int: SectionValue {
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self? { try o.int(key) }
}

extension Array: SectionValue where Element == String {
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self? { try o.strings(key) }
}

extension Dictionary: SectionValue where Key == String, Value == String {
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self? { try o.stringMap(key) }
}

extension Optional: SectionValue where Wrapped: SectionValue {
    static func read(_ o: PlainObject, _ key: PlainObject.Key) throws -> Self? { try Wrapped.read(o, key).map(Self.some) }
}
