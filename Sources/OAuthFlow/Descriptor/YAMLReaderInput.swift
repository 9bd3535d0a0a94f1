import CYaml

/// Text handed to libyaml's scanner in the parser's own character buffer, without its reader.
///
/// libyaml's reader (`yaml_parser_update_buffer`) copies the input into the parser's character buffer one
/// character at a time, decoding each from UTF-8, refusing any that is not valid UTF-8 or not printable (YAML 1.1
/// §5.1: tab, line feed, carriage return, U+0020–U+007E, U+0085, U+00A0–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF) and
/// encoding it again: the same bytes, when it accepts them all. On a descriptor that was a fifth of lint's
/// instructions, for text the descriptor reader had already checked as UTF-8.
///
/// So text whose every character the reader would accept (``characterCount(_:)`` says how many there are) is placed
/// in that buffer as it is, followed by the NUL the reader puts after the last character, with the parser told it
/// has reached the end of its input: the reader then has nothing to do, and the scanner reads what the reader would
/// have written. Any other text (a control character, invalid UTF-8) goes through the reader, which reports it.
struct YAMLReaderInput: ~Copyable {
    /// NUL bytes after the text: the scanner looks up to a few characters ahead of the NUL that ends the input.
    static let padding = 64

    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let characters: Int

    /// The text copied with its padding, or nil when libyaml's reader would refuse a character of it (the reader
    /// then reads it and says which): `characters` is ``characterCount(_:)`` of `bytes`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, characters: Int?) {
        guard let characters else { return nil }
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count + Self.padding)
        let copied = storage.initialize(fromContentsOf: bytes)
        storage[copied...].initialize(repeating: 0)
        self.storage = storage
        self.characters = characters
    }

    deinit {
        storage.deallocate()
    }

    /// Runs `body` with `parser` reading this text, then gives the parser its own buffer back (which
    /// `yaml_parser_delete` frees). The parser must be initialized, with its input set and nothing read yet.
    func reading<Result>(with parser: inout yaml_parser_t, _ body: (inout yaml_parser_t) throws(YAMLSyntaxError) -> Result)
        throws(YAMLSyntaxError) -> Result
    {
        let own = parser.buffer
        defer { parser.buffer = own }
        guard let start = storage.baseAddress else { return try body(&parser) }
        let textEnd = storage.count - Self.padding
        parser.buffer.start = start
        parser.buffer.pointer = start
        // After the NUL, as the reader leaves it at the end of the input.
        parser.buffer.last = start + textEnd + 1
        parser.buffer.end = start + storage.count
        parser.unread = characters + 1
        parser.eof = 1
        return try body(&parser)
    }

    /// The number of characters in `bytes` when every one is UTF-8 and printable as libyaml's reader judges them,
    /// else nil. Printable ASCII is judged eight bytes at a time.
    static func characterCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        var index = 0
        var characters = 0
        while index < count {
            if index + 8 <= count {
                // In memory order whatever the processor's: the first byte is the word's lowest.
                let refused = unprintable(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                if refused == 0 {
                    index += 8
                    characters += 8
                    continue
                }
                // The bytes before the first one refused are printable ASCII: counted at once, and the refused one
                // (a character beyond ASCII, most often) judged below; a word is not judged again for each of them.
                let clean = refused.trailingZeroBitCount / 8
                index += clean
                characters += clean
            }
            let lead = base[index]
            if lead < 0x80 {
                guard lead >= 0x20 && lead != 0x7F || lead == 0x09 || lead == 0x0A || lead == 0x0D else { return nil }
                index += 1
                characters += 1
                continue
            }
            guard let width = printableSequenceWidth(base, at: index, count: count) else { return nil }
            index += width
            characters += 1
        }
        return characters
    }

    /// The high bit of each byte of `word` that is not in U+0020–U+007E and not a line feed (a descriptor has one every
    /// few dozen bytes), and no other bit: zero for a word of printable ASCII.
    private static func unprintable(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        // A byte at or above 0x80; one below 0x20 that is not a line feed; one equal to 0x7F. Each test is exact for
        // each byte (no borrow from one byte reaches the next), so a line feed lets the bytes around it through.
        let below = UTF8Search.zeroBytes(word & (0xE0 &* ones)) & ~UTF8Search.zeroBytes(word ^ (0x0A &* ones))
        let delete = UTF8Search.zeroBytes(word ^ (0x7F &* ones))
        return (word & high) | below | delete
    }

    /// The length of the multi-byte UTF-8 sequence at `index` when it decodes as libyaml's reader decodes it (no
    /// overlong form, no surrogate, nothing past U+10FFFF, no truncation) to a character it accepts; else nil.
    private static func printableSequenceWidth(_ base: UnsafePointer<UInt8>, at index: Int, count: Int) -> Int? {
        let lead = base[index]
        let width: Int
        var value: UInt32
        switch lead {
        case 0xC0...0xDF: (width, value) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (width, value) = (3, UInt32(lead & 0x0F))
        case 0xF0...0xF7: (width, value) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard index + width <= count else { return nil }
        for offset in 1..<width {
            let byte = base[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        let least: UInt32 = width == 2 ? 0x80 : width == 3 ? 0x800 : 0x10000
        guard value >= least else { return nil }
        switch value {
        case 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return width
        default: return nil
        }
    }
}
