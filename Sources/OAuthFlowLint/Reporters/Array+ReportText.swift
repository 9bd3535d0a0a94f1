import OAuthFlow

/// A report written as bytes: every reporter appends each diagnostic's parts to one array and makes one `String`
/// of it at the end. Appending to a `String` part by part cost about 400 instructions an append (the string's
/// capacity, ASCII and normalization flags checked each time), more than the rest of a diagnostic's line.
extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `text`.
    mutating func append(text: String) {
        append(contentsOf: text.utf8)
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    mutating func append(decimal value: Int) {
        guard value >= 0 else {
            append(contentsOf: String(value).utf8)
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `text` as `TerminalText.escaped(text)` writes it: its own bytes when every character shows as itself
    /// (nearly every path, message and rule id), judged eight bytes at a time while they are printable ASCII and a
    /// character at a time beyond ASCII; the escaped text otherwise. `TerminalText.escaped` judged a byte at a time,
    /// and the line then had to be judged again as it became a `String`.
    mutating func append(terminalText text: String) {
        let shown =
            text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                guard let start = bytes.baseAddress else { return true }
                let raw = UnsafeRawPointer(start)
                var index = 0
                while index < bytes.count {
                    if index + 8 <= bytes.count, Self.isPrintableASCII(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                        index += 8
                        continue
                    }
                    let byte = bytes[index]
                    if byte >= 0x20 && byte < 0x7F {
                        index += 1
                        continue
                    }
                    // A control, or the lead byte of a character beyond ASCII (the text is valid UTF-8): that character
                    // decoded in place and judged as `TerminalText` judges it.
                    guard byte >= 0xC0 else { return false }
                    let length = byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                    guard index + length <= bytes.count else { return false }
                    var value = UInt32(byte & (0x7F >> length))
                    for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
                    guard let scalar = Unicode.Scalar(value), !TerminalText.needsEscape(scalar) else { return false }
                    index += length
                }
                return true
            } ?? false
        append(text: shown ? text : TerminalText.escaped(text))
    }

    /// Whether all eight bytes of `word` are printable ASCII (0x20 to 0x7E): none has its high bit set, none is below
    /// 0x20 (subtracting 0x20 from such a byte sets its high bit; a borrow it passes on only follows a byte already
    /// found), and none is 0x7F (adding 1 sets its high bit).
    static func isPrintableASCII(_ word: UInt64) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return false }
        return ((word &- 0x2020_2020_2020_2020) | (word &+ 0x0101_0101_0101_0101)) & high == 0
    }
}
