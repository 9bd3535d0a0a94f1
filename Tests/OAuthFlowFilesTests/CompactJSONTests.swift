import Foundation
import OAuthFlowFiles
import Testing

/// CompactJSON, the one strict reader, accepts less than JSONSerialization, never more, and reads what it accepts the same way.
@Suite struct CompactJSONTests {
    static func sameValue(_ compact: CompactJSON, _ other: Any) -> Bool {
        switch (compact, other) {
        case let (.object(members), other as [String: Any]):
            return members.count == other.count && members.allSatisfy { name, value in other[name].map { sameValue(value, $0) } ?? false }
        case let (.array(elements), other as [Any]):
            return elements.count == other.count && zip(elements, other).allSatisfy { sameValue($0, $1) }
        case let (.string(text), other as String): return text == other
        case (.null, is NSNull): return true
        case let (.bool(flag), other as NSNumber): return other.boolValue == flag
        case let (.number(text), other as NSNumber): return Double(text) == other.doubleValue
        default: return false
        }
    }

    @Test(arguments: [
        #"{"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "b": {}}"#, "[]", #""\/\\\"""#, "0", "-0.0E+1", "  {\"k\":\"v\"}  ",
    ])
    func readsValidJSONAsFoundationDoes(_ text: String) throws {
        let compact = try #require(CompactJSON.parse(Array(text.utf8)))
        let reference = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(Self.sameValue(compact, reference), "\(text)")
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "1e", "tru", "nul", "\"\\x\"", "\"\u{01}\"", "\"\\ud800\"", "\"\\udc00x\"",
        "{\"a\":1,\"a\":2}", "[1] [2]", "1e400", "[-1e999]", "2e-324", "[1e-400]", "{\"a\" 1}", "\"abc", String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
    ])
    func refusesWhatIsNotJSONOrIsAmbiguous(_ text: String) {
        #expect(CompactJSON.parse(Array(text.utf8)) == nil, "\(text)")
    }

    @Test func refusesInvalidUTF8() {
        #expect(CompactJSON.parse([0x22, 0xC3, 0x28, 0x22]) == nil)
        #expect(CompactJSON.parse([0x22, 0xFF, 0x22]) == nil)
    }

    /// Mutations of a session-shaped document: whatever CompactJSON accepts, JSONSerialization accepts with the same values.
    @Test func neverAcceptsMoreThanFoundation() throws {
        let seed = Array(
            #"{"formatVersion":1,"key":{"account":"default","providerID":"gh"},"tokens":{"accessToken":"t\u0041k","expiresAt":"2030-01-01T00:00:00Z","scopes":["a","b"],"n":-1.5e2,"ok":true,"none":null}}"#
                .utf8)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]",:\"0123456789eE+-.truefalsn \u"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
                default: if bytes.count > 1 { bytes.remove(at: at) }
                }
            }
            guard let compact = CompactJSON.parse(bytes) else { continue }
            accepted += 1
            let reference = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            #expect(reference != nil, "accepted what Foundation refuses: \(String(decoding: bytes, as: UTF8.self))")
            if let reference { #expect(Self.sameValue(compact, reference), "read differently: \(String(decoding: bytes, as: UTF8.self))") }
        }
        #expect(accepted > 100, "the mutations should leave some documents valid")
    }
}
