import Testing

@testable import OAuthFlowFiles

/// Descriptor bytes are checked as UTF-8 without making a `String`: the judgement is `String(validating:)`'s, which
/// an Apple platform has from macOS 15 and iOS 18 (below, Swift Testing skips the tests that compare with it).
@Suite struct UTF8ValidationTests {
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    func agrees(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } == (String(validating: bytes, as: UTF8.self) != nil)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    @Test func everyTwoByteSequenceAndItsNeighbours() {
        var differing: [[UInt8]] = []
        for first in 0...255 {
            for second in 0...255 {
                let pair = [UInt8(first), UInt8(second)]
                // Alone, behind eight ASCII bytes (the fast path's width), and with continuation bytes after it.
                for bytes in [pair, Array("abcdefgh".utf8) + pair, pair + [0x80, 0x80], pair + [0x80, 0x80, 0x41]] where !agrees(bytes) {
                    differing.append(bytes)
                }
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    @Test func twoHundredThousandRandomSequences() {
        var generator = SystemRandomNumberGenerator()
        // Mostly bytes that begin or continue sequences, so that most sequences are nearly valid.
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var differing: [[UInt8]] = []
        for _ in 0..<200_000 {
            let count = Int.random(in: 0...12, using: &generator)
            let bytes = (0..<count).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0...255, using: &generator)
            }
            if !agrees(bytes) { differing.append(bytes) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
        for text in ["", "plain ASCII, longer than eight bytes", "é", "日本語のテキスト", "🚀 emoji", "\u{10FFFF}", "a\u{FEFF}b"] {
            #expect(agrees(Array(text.utf8)))
        }
    }

    /// Below macOS 15 and iOS 18, where `String(validating:as:)` does not exist, bytes are decoded as it decodes them:
    /// the same string, or nil for the same bytes.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    func decodesAlike(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { UTF8Validation.stringCheckedHere($0) } == String(validating: bytes, as: UTF8.self)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    @Test func decodesBelowTheStandardLibrarysVersionAsItDoes() {
        var differing: [[UInt8]] = []
        for first in 0...255 {
            for second in 0...255 {
                let pair = [UInt8(first), UInt8(second)]
                for bytes in [pair, Array("abcdefgh".utf8) + pair, pair + [0x80, 0x80], pair + [0x80, 0x80, 0x41]] where !decodesAlike(bytes) {
                    differing.append(bytes)
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            if !decodesAlike(bytes) { differing.append(bytes) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
    }

    /// What is not UTF-8 is refused, on both paths: an overlong form, a surrogate, a scalar past U+10FFFF, a cut
    /// sequence, a lone continuation byte, a byte UTF-8 never uses; UTF-8 is decoded, NUL included.
    @Test(arguments: [
        [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0x61, 0x80], [0xFF], [0x61, 0x62, 0xFE],
    ] as [[UInt8]])
    func refusesWhatIsNotUTF8(bytes: [UInt8]) {
        #expect(UTF8Validation.string(bytes) == nil)
        #expect(bytes.withUnsafeBufferPointer { UTF8Validation.stringCheckedHere($0) } == nil)
    }

    @Test(arguments: ["", "a", "é", "€", "𝄞", "a\u{0}b", "\u{D7FF}\u{E000}\u{10FFFF}", "naïve 日本 🚀 text longer than eight"])
    func decodesUTF8(text: String) {
        let bytes = Array(text.utf8)
        #expect(UTF8Validation.string(bytes) == text)
        #expect(bytes.withUnsafeBufferPointer { UTF8Validation.stringCheckedHere($0) } == text)
    }
}
