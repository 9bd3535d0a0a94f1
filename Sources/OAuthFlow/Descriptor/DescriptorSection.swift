/// A section of a provider descriptor (`security`, `revocation`, …), read and written key by key from the keys it
/// declares: each ``SectionKey`` names a key, its shape, default and sentence, and the property its value goes to.
///
/// The section's `init()` holds its defaults; a key that is absent leaves its default in place, and a key whose
/// value is absent (nil) is not written.
package protocol DescriptorSection: Codable {
    /// The section with every default.
    init()
    /// The section's keys, in the order the reference lists them and the loader reads them.
    static var keys: [SectionKey<Self>] { get }
}

extension DescriptorSection {
    package init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PlainObject.Key.self)
        for key in Self.keys { try key.write(self, &container) }
    }

    /// The section as `o` gives it: each key read in turn into the defaults.
    init(plain o: PlainObject) throws {
        self.init()
        // Each key's reader taken from the list in place: a `for key in` loop copied each key, retaining its strings.
        // A key the mapping does not hold is passed over without its reader where that reader would do nothing: the
        // section's shape lists its fields in the order of `keys` (`Shape.section`), and the mapping's table of field
        // values says which are absent, where each reader searched the fields by name to find it out (most of a
        // section's keys are absent from most descriptors).
        try Self.keys.withUnsafeBufferPointer { keys in
            for index in keys.indices {
                if keys[index].skipsWhenAbsent, o.lacks(field: index, named: keys[index].field.name) { continue }
                try keys[index].read(o, &self)
            }
        }
    }
}
