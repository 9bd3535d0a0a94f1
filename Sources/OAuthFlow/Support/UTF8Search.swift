extension StringProtocol {
    /// Where `needle` first occurs, comparing UTF-8 bytes rather than characters.
    ///
    /// For ASCII needles in hot paths (URL templates, the literal-secret rule): Foundation's
    /// `range(of:)` bridges to `NSString`, and `_StringProcessing`'s generic `contains`
    /// built a search table on every call, a quarter of all lint time (Docs/benchmarks.md).
    package func firstUTF8Range(of needle: String) -> Range<Index>? {
        guard let lead = needle.utf8.first else { return startIndex..<startIndex }
        let bytes = utf8
        var index = bytes.startIndex
        while let found = bytes[index...].firstIndex(of: lead) {
            if bytes[found...].starts(with: needle.utf8) {
                return found..<bytes.index(found, offsetBy: needle.utf8.count)
            }
            index = bytes.index(after: found)
        }
        return nil
    }
}
