/// One key of a descriptor section: the schema's entry for it (its name, shape, default and sentence) and the property
/// its value goes to, so that the loader, the encoder, `providers/schema.json` and the reference read one list.
///
/// The property is read and written through closures (a key path literal where a function is expected, `\.pkce`, is
/// one, and `{ $0.pkce = $1 }`), not through key paths: the runtime makes each key path object, and the generic class it
/// is an instance of, the first time its literal is evaluated, and the 132 keys' took 4.3 million instructions at the
/// start of every process that read a descriptor (Docs/benchmarks.md).
package struct SectionKey<Section>: Sendable {
    typealias Shape = DescriptorSchema.Shape
    typealias Container = KeyedEncodingContainer<PlainObject.Key>
    /// Reads a key's property from the section.
    typealias Getter<Value> = @Sendable (Section) -> Value
    /// Stores a key's value in the section's property.
    typealias Setter<Value> = @Sendable (inout Section, Value) -> Void

    let field: DescriptorSchema.Field
    /// Reads the key from a mapping into the section: an absent key leaves the section's default, or fails when the
    /// key is required.
    let read: @Sendable (PlainObject, inout Section) throws -> Void
    /// Writes the section's value under the key, unless it is nil.
    let write: @Sendable (Section, inout Container) throws -> Void
    /// Whether `read` does nothing at all when the mapping does not hold the key: true for a key that is not required
    /// and is read into its own property alone; false for a custom reader (which may fall back on another key).
    let skipsWhenAbsent: Bool

    /// A key read by `read` (a default taken from another key, a list of mixed entries) and written from what `get`
    /// reads.
    init<Value: Encodable & SendableMetatype>(
        _ get: @escaping Getter<Value>, _ name: String, _ shape: Shape, default defaultValue: String? = nil,
        _ summary: String, read: @escaping @Sendable (PlainObject, PlainObject.Key, inout Section) throws -> Void
    ) {
        field = DescriptorSchema.Field(name, shape, default: defaultValue, summary)
        let key = PlainObject.Key(stringValue: name)
        self.read = { o, section in try read(o, key, &section) }
        write = Self.writer(get, key)
        skipsWhenAbsent = false
    }

    /// A key whose value `set` stores, read as `reader` reads it, and `get` reads back.
    private init<Value: Encodable & SendableMetatype>(
        _ field: DescriptorSchema.Field, _ get: @escaping Getter<Value>, _ set: @escaping Setter<Value>,
        _ reader: @escaping @Sendable (PlainObject, PlainObject.Key) throws -> Value?
    ) {
        self.field = field
        let key = PlainObject.Key(stringValue: field.name)
        let required = field.required
        skipsWhenAbsent = !required
        read = { o, section in
            if let value = try reader(o, key) {
                set(&section, value)
            } else if required {
                throw o.missing(key)
            }
        }
        write = Self.writer(get, key)
    }

    private static func writer<Value: Encodable & SendableMetatype>(_ get: @escaping Getter<Value>, _ key: PlainObject.Key)
        -> @Sendable (Section, inout Container) throws -> Void
    {
        { section, container in
            let value = get(section)
            if let optional = value as? any AbsentValue, optional.isAbsent { return }
            try container.encode(value, forKey: key)
        }
    }

    /// A key holding a string, a flag, a number, or a list or mapping of strings (or an optional one): the property's
    /// type says how it is read.
    init<Value: SectionValue & SendableMetatype>(
        _ get: @escaping Getter<Value>, _ set: @escaping Setter<Value>, _ name: String, _ shape: Shape, required: Bool = false,
        default defaultValue: String? = nil, _ summary: String
    ) {
        self.init(DescriptorSchema.Field(name, shape, required: required, default: defaultValue, summary), get, set) { try Value.read($0, $1) }
    }

    /// A key holding a nested section.
    init<Value: DescriptorSection & SendableMetatype>(
        _ get: @escaping Getter<Value>, _ set: @escaping Setter<Value>, _ name: String, _ summary: String
    ) {
        self.init(DescriptorSchema.Field(name, .section(Value.keys), summary), get, set) { o, key in try o.object(key, Value.init(plain:)) }
    }

    /// A key holding a nested section, or nothing.
    init<Value: DescriptorSection & SendableMetatype>(
        _ get: @escaping Getter<Value?>, _ set: @escaping Setter<Value?>, _ name: String, _ summary: String
    ) {
        self.init(DescriptorSchema.Field(name, .section(Value.keys), summary), get, set) { o, key in
            try o.object(key, Value.init(plain:)).map(Optional.some)
        }
    }

    /// A key holding one of an enumeration's values, `value` when absent: the vocabulary and the default are the model's.
    init<Value: CaseIterable & RawRepresentable & Encodable & SendableMetatype>(
        _ get: @escaping Getter<Value>, _ set: @escaping Setter<Value>, _ name: String, default value: Value, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, default: value, summary), get, set) { o, key in try o.choice(key, as: Value.self) }
    }

    /// A key holding one of an enumeration's values, named by `shape`.
    init<Value: RawRepresentable & Encodable & SendableMetatype>(
        _ get: @escaping Getter<Value>, _ set: @escaping Setter<Value>, _ name: String, _ shape: Shape, required: Bool = false,
        default defaultValue: String? = nil, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, required: required, default: defaultValue, summary), get, set) { o, key in
            try o.choice(key, as: Value.self)
        }
    }

    /// A key holding one of an enumeration's values, or nothing.
    init<Value: RawRepresentable & Encodable & SendableMetatype>(
        _ get: @escaping Getter<Value?>, _ set: @escaping Setter<Value?>, _ name: String, _ shape: Shape, required: Bool = false,
        default defaultValue: String? = nil, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, required: required, default: defaultValue, summary), get, set) { o, key in
            try o.choice(key, as: Value.self).map(Optional.some)
        }
    }

    /// A key holding a list of an enumeration's values.
    init<Value: RawRepresentable & Encodable & SendableMetatype>(
        _ get: @escaping Getter<[Value]>, _ set: @escaping Setter<[Value]>, _ name: String, _ shape: Shape, default defaultValue: String? = nil,
        _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, default: defaultValue, summary), get, set) { o, key in try o.choices(key, as: Value.self) }
    }

    /// A key holding a list of an enumeration's values, or nothing.
    init<Value: RawRepresentable & Encodable & SendableMetatype>(
        _ get: @escaping Getter<[Value]?>, _ set: @escaping Setter<[Value]?>, _ name: String, _ shape: Shape, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, summary), get, set) { o, key in try o.choices(key, as: Value.self).map(Optional.some) }
    }
}

/// A value that may be nil: a key whose value is nil is left out when a section is written, as Swift's own coding does.
private protocol AbsentValue {
    var isAbsent: Bool { get }
}

extension Optional: AbsentValue {
    fileprivate var isAbsent: Bool { self == nil }
}
