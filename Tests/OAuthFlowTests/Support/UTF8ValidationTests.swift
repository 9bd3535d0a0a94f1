import Testing

@testable import OAuthFlow

/// Descriptor bytes are checked as UTF-8 without making a `String`: the judgement is `String(validating:)`'s.
@Suite struct UTF8ValidationTests {
    func agrees(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } == (String(validating: bytes, as: UTF8.self) != nil)
    }

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
}
