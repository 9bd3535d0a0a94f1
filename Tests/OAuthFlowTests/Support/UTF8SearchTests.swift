import Testing

import OAuthFlow

/// Byte searches against the plainest search there is, over every pattern and text of a small alphabet.
@Suite struct UTF8SearchTests {
    private static func naive(_ pattern: [UInt8], _ text: [UInt8]) -> Range<Int>? {
        guard pattern.count <= text.count else { return nil }
        for start in 0...(text.count - pattern.count) where Array(text[start..<start + pattern.count]) == pattern {
            return start..<start + pattern.count
        }
        return nil
    }

    /// Every text of up to six bytes from `ab-`, against every pattern of up to four: overlaps
    /// (`aab` in `aaab`), a pattern at the very end, longer than the text, and empty.
    @Test func firstRangeIsTheFirstOccurrence() {
        func words(upTo length: Int) -> [[UInt8]] {
            var all: [[UInt8]] = [[]], last: [[UInt8]] = [[]]
            for _ in 0..<length {
                last = last.flatMap { word in Array("ab-".utf8).map { word + [$0] } }
                all += last
            }
            return all
        }
        var disagreements: [String] = []
        for text in words(upTo: 6) {
            for pattern in words(upTo: 4) {
                let found = text.withUnsafeBufferPointer { bytes in pattern.withUnsafeBufferPointer { UTF8Search.firstRange(of: $0, in: bytes) } }
                if found != Self.naive(pattern, text) {
                    disagreements.append("\(String(decoding: pattern, as: UTF8.self)) in \(String(decoding: text, as: UTF8.self))")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test func containsFindsPEMArmour() {
        let text = Array("x: -----BEGIN PRIVATE KEY-----".utf8)
        text.withUnsafeBufferPointer { bytes in
            #expect(UTF8Search.contains("-----BEGIN", in: bytes))
            #expect(!UTF8Search.contains("-----END", in: bytes))
        }
    }
}
