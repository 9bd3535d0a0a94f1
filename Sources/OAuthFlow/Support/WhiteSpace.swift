/// White space as Foundation's `CharacterSet.whitespaces` has it (the Unicode space separators, Zs, the tab and
/// U+200B, the zero width space), read without Foundation: a `CharacterSet` made or searched for each value, and
/// NSString's trimming, were a third of a lint of descriptors with profiles. A test holds the two equal for every
/// scalar.
enum WhiteSpace {
    /// Whether `scalar` is white space.
    static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x09: true
        case 0...0x9F: false
        case 0x200B: true
        default: scalar.properties.generalCategory == .spaceSeparator
        }
    }

    /// `text` without the white space at either end: `text.trimmingCharacters(in: .whitespaces)`.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, contains(first) || contains(last) else { return text }
        guard let start = scalars.firstIndex(where: { !contains($0) }), let end = scalars.lastIndex(where: { !contains($0) }) else { return "" }
        return String(scalars[start...end])
    }

    /// Whether `text` is empty or white space only: `text.trimmingCharacters(in: .whitespaces).isEmpty`.
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy(contains)
    }
}
