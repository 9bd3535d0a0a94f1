/// One key of a descriptor section: the schema's entry for it (its name, shape, default and sentence) and the property
/// its value goes to, so that the loader, the encoder, `providers/schema.json` and the reference read one list.
package struct SectionKey<Section>: Sendable {
    typealias Shape = DescriptorSchema.Shape
    typealias Container = KeyedEncodingContainer<PlainObject.Key>

    let field: DescriptorSchema.Field
    /// Reads the key from a mapping into the section: an absent key leaves the section's default, or fails when the
    /// key is required.
    let read: @Sendable (PlainObject, inout Section) throws -> Void
    /// Writes the section's value under the key, unless it is nil.
    let write: @Sendable (Section, inout Container) throws -> Void
    /// Whether `read` does nothing at all when the mapping does not hold the key: true for a key that is not required
    /// and is read into its own property alone; false for a custom reader (which may fall back on another key).
    let skipsWhenAbsent: Bool

    /// A key read by `read` (a default taken from another key, a list of mixed entries) and written from `path`.
    init<Value: Encodable>(
        _ path: KeyPath<Section, Value> & Sendable, _ name: String, _ shape: Shape, default defaultValue: String? = nil,
        _ summary: String, read: @escaping @Sendable (PlainObject, PlainObject.Key, inout Section) throws -> Void
    ) {
        field = DescriptorSchema.Field(name, shape, default: defaultValue, summary)
        let key = PlainObject.Key(stringValue: name)
        self.read = { o, section in try read(o, key, &section) }
        write = Self.writer(path, key)
        skipsWhenAbsent = false
    }

    /// A key whose value goes to `path`, read as `reader` reads it.
    private init<Value: Encodable>(
        _ field: DescriptorSchema.Field, _ path: WritableKeyPath<Section, Value> & Sendable,
        _ reader: @escaping @Sendable (PlainObject, PlainObject.Key) throws -> Value?
    ) {
        self.field = field
        let key = PlainObject.Key(stringValue: field.name)
        let required = field.required
        skipsWhenAbsent = !required
        // A stored property's place in the section, found once: a value is stored there directly, where applying the
        // key path for each key of each descriptor went through the runtime's generic projection.
        if let offset = MemoryLayout<Section>.offset(of: path) {
            read = { o, section in
                if let value = try reader(o, key) {
                    withUnsafeMutableBytes(of: &section) { bytes in
                        // The property's memory is bound to its type as part of the section's (MemoryLayout.offset(of:)).
                        bytes.baseAddress.unsafelyUnwrapped.advanced(by: offset).assumingMemoryBound(to: Value.self).pointee = value
                    }
                } else if required {
                    throw o.missing(key)
                }
            }
        } else {
            read = { o, section in
                if let value = try reader(o, key) {
                    section[keyPath: path] = value
                } else if required {
                    throw o.missing(key)
                }
            }
        }
        write = Self.writer(path, key)
    }

    private static func writer<Value: Encodable>(_ path: KeyPath<Section, Value> & Sendable, _ key: PlainObject.Key)
        -> @Sendable (
            Section, inout Container
        ) throws -> Void
    {
        { section, container in
            let value = section[keyPath: path]
            if let optional = value as? any AbsentValue, optional.isAbsent { return }
            try container.encode(value, forKey: key)
        }
    }

    /// A key holding a string, a flag, a number, or a list or mapping of strings (or an optional one): the property's
    /// type says how it is read.
    init<Value: SectionValue>(
        _ path: WritableKeyPath<Section, Value> & Sendable, _ name: String, _ shape: Shape, required: Bool = false,
        default defaultValue: String? = nil, _ summary: String
    ) {
        self.init(DescriptorSchema.Field(name, shape, required: required, default: defaultValue, summary), path, Value.read)
    }

    /// A key holding a nested section.
    init<Value: DescriptorSection>(_ path: WritableKeyPath<Section, Value> & Sendable, _ name: String, _ summary: String) {
        self.init(DescriptorSchema.Field(name, .section(Value.keys), summary), path) { o, key in try o.object(key, Value.init(plain:)) }
    }

    /// A key holding a nested section, or nothing.
    init<Value: DescriptorSection>(_ path: WritableKeyPath<Section, Value?> & Sendable, _ name: String, _ summary: String) {
        self.init(DescriptorSchema.Field(name, .section(Value.keys), summary), path) { o, key in
            try o.object(key, Value.init(plain:)).map(Optional.some)
        }
    }

    /// A key holding one of an enumeration's values, `value` when absent: the vocabulary and the default are the model's.
    init<Value: CaseIterable & RawRepresentable & Encodable>(
        _ path: WritableKeyPath<Section, Value> & Sendable, _ name: String, default value: Value, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, default: value, summary), path) { o, key in try o.choice(key, as: Value.self) }
    }

    /// A key holding one of an enumeration's values, named by `shape`.
    init<Value: RawRepresentable & Encodable>(
        _ path: WritableKeyPath<Section, Value> & Sendable, _ name: String, _ shape: Shape, required: Bool = false,
        default defaultValue: String? = nil, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, required: required, default: defaultValue, summary), path) { o, key in
            try o.choice(key, as: Value.self)
        }
    }

    /// A key holding one of an enumeration's values, or nothing.
    init<Value: RawRepresentable & Encodable>(
        _ path: WritableKeyPath<Section, Value?> & Sendable, _ name: String, _ shape: Shape, required: Bool = false,
        default defaultValue: String? = nil, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, required: required, default: defaultValue, summary), path) { o, key in
            try o.choice(key, as: Value.self).map(Optional.some)
        }
    }

    /// A key holding a list of an enumeration's values.
    init<Value: RawRepresentable & Encodable>(
        _ path: WritableKeyPath<Section, [Value]> & Sendable, _ name: String, _ shape: Shape, default defaultValue: String? = nil,
        _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, default: defaultValue, summary), path) { o, key in try o.choices(key, as: Value.self) }
    }

    /// A key holding a list of an enumeration's values, or nothing.
    init<Value: RawRepresentable & Encodable>(
        _ path: WritableKeyPath<Section, [Value]?> & Sendable, _ name: String, _ shape: Shape, _ summary: String
    ) where Value.RawValue == String {
        self.init(DescriptorSchema.Field(name, shape, summary), path) { o, key in try o.choices(key, as: Value.self).map(Optional.some) }
    }
}

/// A value that may be nil: a key whose value is nil is left out when a section is written, as Swift's own coding does.
private protocol AbsentValue {
    var isAbsent: Bool { get }
}

extension Optional: AbsentValue {
    fileprivate var isAbsent: Bool { self == nil }
}
