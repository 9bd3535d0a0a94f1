import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// Text handed to libyaml's scanner without its reader (``YAMLReaderInput``) composes exactly as text the reader
/// reads: the same tree, or the same error at the same place, and the reader still reads (and refuses) every text it
/// would refuse.
@Suite struct YAMLReaderInputTests {
    /// The tree as comparable lines: every node's kind, style, tag, position, counts and text, the children, the tags.
    static func dump(_ tree: YAMLTree?) -> [String] {
        guard let tree else { return ["no document"] }
        var lines = tree.entries.enumerated().map { index, entry in
            "\(index) \(entry.kind) \(entry.style) \(entry.tag) \(entry.line):\(entry.column) \(entry.firstChild)+\(entry.childCount) "
                + "\(entry.expandedCount) \(entry.expandedBytes) \(entry.depth) \(entry.textStart) \(tree.scalarText(index) ?? "")"
        }
        lines.append("children \(tree.children)")
        lines.append("tags \(tree.customTags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" })")
        lines.append("text \(tree.text)")
        return lines
    }

    /// What composing `bytes` gives, one way or the other: the tree's lines or the error's.
    static func composed(_ bytes: [UInt8], throughReader: Bool) -> [String] {
        bytes.withUnsafeBufferPointer { buffer in
            do throws(YAMLSyntaxError) {
                return dump(try YAMLTree.compose(bytes: buffer, maximumDepth: 64, throughReader: throughReader))
            } catch {
                let context = error.context.map { "\($0.text) \($0.line):\($0.column)" } ?? "-"
                return ["error \(error.kind) \(error.problem) \(error.line):\(error.column) \(context)"]
            }
        }
    }

    static func expectSame(_ bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let handed = composed(bytes, throughReader: false)
        let read = composed(bytes, throughReader: true)
        #expect(handed == read, "\(String(decoding: bytes.prefix(120), as: UTF8.self))", sourceLocation: sourceLocation)
    }

    static var bundled: [[UInt8]] {
        guard let directory = BundledProviders.directory,
            let names = try? ProviderRegistry.descriptorFileNames(in: directory)
        else { return [] }
        return names.compactMap { try? Array(Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// Every character class the reader judges, in a value and in the places a scanner looks ahead (ends of lines,
    /// the end of the text), across texts longer than the reader's 16 KiB input buffer.
    @Test func theBundledDescriptorsAndTheirVariantsComposeAlike() throws {
        let bundled = Self.bundled
        #expect(bundled.count >= 100)
        for bytes in bundled { Self.expectSame(bytes) }
        let characters: [String] = [
            "\t", "\r", "\r\n", "\u{85}", "\u{A0}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "é", "e\u{301}", "中", "😀", "\u{10FFFF}",
            "\u{7F}", "\u{1}", "\u{1B}", "\u{80}", "\u{9F}", "\u{D7FF}", "\u{E000}", "\u{FFFE}", "\u{FFFF}", "\u{0}", "\u{B}", "\u{C}",
        ]
        var generator = SystemRandomNumberGenerator()
        for (round, character) in characters.enumerated() {
            var bytes = bundled[round % bundled.count]
            for _ in 0..<3 {
                let at = Int.random(in: 0...bytes.count, using: &generator)
                bytes.insert(contentsOf: Array(character.utf8), at: at)
            }
            Self.expectSame(bytes)
            Self.expectSame(Array("key: \"a\(character)b\"\nother: x\(character)\n".utf8))
            Self.expectSame(Array("key: a\(character)".utf8))
            Self.expectSame(Array(character.utf8))
        }
        // Past libyaml's 16 KiB input and 48 KiB character buffers, and a control character past the first 16 KiB,
        // which the reader reaches only if the scanner gets that far.
        let long = Array(bundled.prefix(20).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n# next\n").utf8)
        #expect(long.count > 49_152)
        Self.expectSame(long)
        Self.expectSame(long + Array("\nlate: \u{1}\n".utf8))
        Self.expectSame(Array("a: [\n".utf8) + long)
        Self.expectSame([])
        Self.expectSame(Array("# only a comment".utf8))
    }

    /// ``YAMLReaderInput/characterCount(_:)`` accepts exactly what libyaml's reader accepts, and counts characters: every
    /// one- and two-byte text, and random three- and four-byte texts, against the reader itself. What it counts holds no
    /// NUL and is valid UTF-8: the descriptor reader checks neither again.
    @Test func theCountAcceptsWhatTheReaderAccepts() {
        /// The reader's verdict where it read the whole text: nil where the scanner stopped first with its own error
        /// (the reader decodes only as far as the scanner asks, so what lies beyond was never judged).
        func readerAccepts(_ bytes: [UInt8]) -> Bool? {
            bytes.withUnsafeBufferPointer { buffer in
                do throws(YAMLSyntaxError) {
                    _ = try YAMLTree.compose(bytes: buffer, throughReader: true)
                    return true
                } catch {
                    if case .reader = error.kind { return false }
                    return nil
                }
            }
        }
        var judged = 0
        func check(_ bytes: [UInt8]) {
            let count = bytes.withUnsafeBufferPointer { YAMLReaderInput.characterCount($0) }
            if let count {
                #expect(count == String(decoding: bytes, as: UTF8.self).unicodeScalars.count, "\(bytes)")
                // What the descriptor reader takes from a count: no NUL, and valid UTF-8 (decoding repairs nothing).
                #expect(!bytes.contains(0) && String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes), "\(bytes)")
            }
            guard let accepted = readerAccepts(bytes) else { return }
            judged += 1
            // Accepting what the reader refuses would skip a refusal; refusing what it accepts only costs the fallback.
            #expect((count != nil) == accepted, "\(bytes)")
        }
        for first in UInt8.min...UInt8.max {
            check([first])
            for second in UInt8.min...UInt8.max { check([first, second]) }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            let length = Int.random(in: 3...40, using: &generator)
            // Mostly printable text around one random byte, so that the eight-byte path, its skip to a refused byte and the
            // byte path all run.
            var bytes = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
            bytes[Int.random(in: 0..<length, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            if Bool.random(using: &generator) { bytes.append(contentsOf: (0..<3).map { _ in UInt8.random(in: 0x80...0xF4, using: &generator) }) }
            check(bytes)
        }
        #expect(judged > 100_000, "the reader judged too few texts to hold the count to it: \(judged)")
    }

    /// The eight-byte judgement lets line feeds through and nothing else below U+0020, wherever two odd bytes stand in
    /// a word: a test that borrowed from one byte into the next would take a control character beside a line feed
    /// (`\n\u{0B}`) for a second line feed.
    @Test func theWordJudgementIsExactForEachByte() {
        let odd: [UInt8] = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x20, 0x7E, 0x7F]
        func printable(_ byte: UInt8) -> Bool { (0x20...0x7E).contains(byte) || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        for length in [8, 16, 24] {
            for first in 0..<length {
                for second in 0..<length where second != first {
                    for a in odd {
                        for b in odd {
                            var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: length)
                            bytes[first] = a
                            bytes[second] = b
                            let count = bytes.withUnsafeBufferPointer { YAMLReaderInput.characterCount($0) }
                            #expect(count == (bytes.allSatisfy(printable) ? length : nil), "\(bytes)")
                        }
                    }
                }
            }
        }
    }
}
