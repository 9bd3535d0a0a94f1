import Foundation

/// A name's length and its first 24 UTF-8 bytes in three words, kept in each field: a probe whose
/// length differs, or whose first bytes do (``begins(_:)``), is not the name; only a name longer
/// than 24 bytes (longer than any field's name but a few) is compared whole.
struct NameKey: Sendable {
    static let width = 24
    let length: Int
    let words: (UInt64, UInt64, UInt64)

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(Self.width)))) }
        self.length = bytes.count
        self.words = words
    }

    init(_ name: String) {
        var name = name
        self = name.withUTF8 { NameKey($0) }
    }

    /// Whether the name's first bytes (up to ``width``) are those of `bytes`.
    func begins(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        var words = words
        return withUnsafeBytes(of: &words) { words in
            guard let first = words.baseAddress else { return false }
            return memcmp(first, start, min(bytes.count, Self.width)) == 0
        }
    }
}
