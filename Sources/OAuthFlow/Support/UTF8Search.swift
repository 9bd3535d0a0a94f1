import Foundation

extension String {
    /// Where `needle` first occurs, comparing UTF-8 bytes rather than characters.
    ///
    /// For ASCII needles in hot paths (URL templates, the literal-secret rule): Foundation's
    /// `range(of:)` bridges to `NSString`, and `_StringProcessing`'s generic `contains`
    /// built a search table on every call, a quarter of all lint time (Docs/benchmarks.md).
    /// It searches the contiguous bytes directly; a generic version over the UTF-8 view
    /// cost 13% of lint time through unspecialized index arithmetic.
    package func firstUTF8Range(of needle: String) -> Range<Index>? {
        var haystack = self, needle = needle
        let found: Range<Int>? = haystack.withUTF8 { bytes in
            needle.withUTF8 { UTF8Search.firstRange(of: $0, in: bytes) }
        }
        return found.map { utf8.index(startIndex, offsetBy: $0.lowerBound)..<utf8.index(startIndex, offsetBy: $0.upperBound) }
    }
}

/// Searching runs of UTF-8 bytes.
package enum UTF8Search {
    /// The high bit of each byte of `word` that is zero, and no other bit: exact for each byte (no carry from one byte
    /// reaches the next), for tests of eight bytes at a time.
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & low) &+ low) | word | low)
    }

    /// Whether every byte is ASCII.
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// Where `pattern` first occurs in `bytes`, as byte offsets; an empty pattern is found at 0.
    package static func firstRange(of pattern: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let lead = pattern.first else { return 0..<0 }
        guard pattern.count <= bytes.count else { return nil }
        // Candidates found by `memchr` (the C library's vector search): `firstIndex(of:)` on a slice of
        // the buffer is left unspecialised, and even a plain loop costs a few instructions a byte.
        guard let base = bytes.baseAddress else { return nil }
        let lastStart = bytes.count - pattern.count
        var candidate = 0
        while candidate <= lastStart {
            guard let found = memchr(base + candidate, Int32(lead), lastStart - candidate + 1) else { return nil }
            candidate = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var matched = 1
            while matched < pattern.count, bytes[candidate + matched] == pattern[matched] { matched += 1 }
            if matched == pattern.count { return candidate..<candidate + pattern.count }
            candidate += 1
        }
        return nil
    }

    /// Whether `string` holds the ASCII `byte` (which in UTF-8 stands for itself alone), found by `memchr` in the
    /// string's storage: `utf8.contains(_:)` steps through the string's view a byte at a time, some thirty
    /// instructions a byte.
    package static func contains(_ byte: UInt8, in string: String) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false
        } ?? string.utf8.contains(byte)
    }

    /// Whether the ASCII `pattern` occurs in `bytes`.
    package static func contains(_ pattern: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        pattern.withUTF8Buffer { firstRange(of: $0, in: bytes) } != nil
    }
}
