import Foundation
import Testing

import OAuthFlow
import OAuthFlowFiles

/// The one strict reader (``CompactJSON``, through `JSONValue.object(reading:maximumDepth:)`) reads a JOSE header, a
/// claims set or a server's answer as `JSONDecoder` reads it into `[String: JSONValue]`, never accepts more, and
/// refuses repeated member names and deep nesting as the checks it replaced did.
@Suite struct StrictJSONReaderTests {
    /// What CompactJWS did before: `JSONDecoder`, then the depth, then the byte scan for repeated names.
    static func reference(_ bytes: [UInt8], maximumDepth: Int = 32) -> Result<[String: JSONValue], CompactJSON.Failure> {
        guard let value = try? JSONDecoder().decode([String: JSONValue].self, from: Data(bytes)) else { return .failure(.notJSON) }
        guard JSONValue.object(value).depth <= maximumDepth else { return .failure(.tooDeep) }
        if let repeated = RepeatedNamesOracle.firstRepeated(in: bytes) { return .failure(.repeatedMember(repeated)) }
        return .success(value)
    }

    static func read(_ bytes: [UInt8], maximumDepth: Int = 32) -> Result<[String: JSONValue], CompactJSON.Failure> {
        do throws(CompactJSON.Failure) {
            return .success(try JSONValue.object(reading: bytes, maximumDepth: maximumDepth))
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [
        #"{}"#, "  {\"k\" : \"v\" }\n", #"{"a":[1,-2.5e3,true,false,null,"x\n\u00e9\ud83d\ude00"],"b":{}}"#,
        #"{"iss":"https://issuer.example","aud":["a","b"],"exp":1767225600,"iat":1767222000.5,"cnf":{"jkt":"abc"}}"#,
        #"{"n":-0,"m":0.1,"big":12345678901234567890123,"exact":9007199254740993,"e":1E+2,"tiny":3e-324,"min":4.9e-324}"#,
        #"{"max":1.7976931348623157e308,"zero":0e-400,"nz":-0.0e-400,"sub":1e-310}"#,
        #"{"s":"\/\\\"\b\f\n\r\t\u0000\u001f","del":"\u007f","raw":"é😀","esc":"\u00E9"}"#,
        #"{"a\"b":1,"a\\b":2,"ab":3}"#, #"{"x":[{"k":1},{"k":2}],"y":{"k":{"k":[]}}}"#, #"{"":""}"#,
    ])
    func readsWhatJSONDecoderReadsTheSameWay(_ text: String) throws {
        let bytes = Array(text.utf8)
        let expected = try Self.reference(bytes).get()
        #expect(try Self.read(bytes).get() == expected, "\(text)")
    }

    @Test(arguments: [
        "", "{", "[]", "\"s\"", "1", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{a:1}", "{'a':1}", "{\"a\":1}x", "{\"a\":1}{}",
        "{\"a\":01}", "{\"a\":-01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":1e}", "{\"a\":1e+}", "{\"a\":-}", "{\"a\":0x10}",
        "{\"a\":Infinity}", "{\"a\":NaN}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":True}",
        "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\ud800\\u0041\"}", "{\"a\":\"\u{01}\"}",
        "{\"a\":\"abc}", "{\"a\":[1 2]}", "{\"a\":[,]}", "{\"a\":[1,,2]}", "{,}", "{\"a\"\u{0B}:1}",
        // JSONDecoder lets these through; a JOSE reader has no reason to.
        "{\"a\":1,}", "{\"a\":[1,]}", "{\"a\":{\"b\":1,}}", "\u{FEFF}{\"a\":1}",
    ])
    func refusesWhatIsNotOneJSONObject(_ text: String) {
        #expect(Self.read(Array(text.utf8)) == .failure(.notJSON), "\(text)")
    }

    /// A number no `Double` holds is refused as such (JSONDecoder refuses it too), not as text that is not JSON.
    @Test(arguments: ["1e400", "-1.8e308", "2e-324", String(repeating: "9", count: 5000)])
    func refusesANumberNoDoubleHolds(_ number: String) {
        let text = Array("{\"a\":\(number)}".utf8)
        #expect(Self.read(text) == .failure(.numberOutOfRange), "\(number)")
        #expect(Self.reference(text) == .failure(.notJSON), "\(number)")
    }

    /// RFC 8259 numbers that JSONDecoder refuses (its check that a number read as 0 was written as 0 misses them): 0.
    @Test(arguments: ["0e3", "0E9", "0.00e01"])
    func readsAZeroWithAnExponentAsZero(_ number: String) throws {
        #expect(try Self.read(Array("{\"n\":\(number)}".utf8)).get() == ["n": .number(0)])
        #expect(Self.reference(Array("{\"n\":\(number)}".utf8)) == .failure(.notJSON))
    }

    @Test func refusesInvalidUTF8InNamesAndValues() {
        for bytes: [UInt8] in [
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D], [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D],
            [0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D], [0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D],
        ] {
            #expect(Self.read(bytes) == .failure(.notJSON), "\(bytes)")
            #expect(Self.reference(bytes) == .failure(.notJSON), "\(bytes)")
        }
    }

    @Test(arguments: [
        (#"{"alg":1,"\u0061lg":2}"#, "alg"), (#"{"\ud83d\ude00":1,"😀":2}"#, "😀"), (#"{"a":{"b":1},"c":{"b":2,"b":3}}"#, "b"),
        (#"{"x":[{"k":1,"k":2}]}"#, "k"), (#"{"é":1,"e\u0301":2}"#, "e\u{301}"),
    ])
    func refusesARepeatedMemberNameDecoded(_ text: String, _ name: String) {
        let bytes = Array(text.utf8)
        #expect(Self.read(bytes) == .failure(.repeatedMember(name)), "\(text)")
        #expect(Self.reference(bytes).isFailure, "\(text)")
    }

    @Test func refusesNestingDeeperThanTheBound() {
        func nested(_ levels: Int, _ open: String, _ close: String) -> [UInt8] {
            Array(("{\"a\":" + String(repeating: open, count: levels - 1) + "1" + String(repeating: close, count: levels - 1) + "}").utf8)
        }
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            #expect(Self.read(nested(32, open, close)) == Self.reference(nested(32, open, close)))
            #expect(Self.read(nested(32, open, close)).isSuccess)
            #expect(Self.read(nested(33, open, close)) == .failure(.tooDeep))
            #expect(Self.reference(nested(33, open, close)) == .failure(.tooDeep))
            // Far deeper than any parser's stack could follow: refused as soon as the bound is passed.
            #expect(Self.read(nested(100_000, open, close)) == .failure(.tooDeep))
        }
        #expect(Self.read(Array(#"{"a":[[1]]}"#.utf8), maximumDepth: 2) == .failure(.tooDeep))
        #expect(Self.read(Array(#"{"a":[1]}"#.utf8), maximumDepth: 2).isSuccess)
    }

    /// Random claims sets read the same way; texts with random bytes changed are read as JSONDecoder reads them, with
    /// the differences the type states: this reader refuses trailing commas, byte order marks and UTF-16 or UTF-32
    /// (which JSONDecoder detects from NUL bytes), and reads as 0 a zero with an exponent that JSONDecoder refuses.
    @Test func randomTextsNeverReadMoreOrOtherwise() {
        var generator = SystemRandomNumberGenerator()
        let names = ["a", "b", "iss", "a\\u0062", "\\u00e9", "é", "k\\\"", ""]
        let strings = ["", "x", "\\n", "\\ud83d\\ude00", "é", "\\u0000", "a b", "\\/"]
        let numbers = ["0", "-0", "1", "-12", "3.25", "1e3", "-2.5E-3", "1767225600", "12345678901234567890", "0.000001", "0e3", "0.0E1"]
        func value(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
            case 0: return "\"" + strings.randomElement(using: &generator)! + "\""
            case 1: return numbers.randomElement(using: &generator)!
            case 2: return ["true", "false", "null"].randomElement(using: &generator)!
            case 3: return " " + (numbers.randomElement(using: &generator)!) + " "
            case 4: return "[" + (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default: return object(depth + 1)
            }
        }
        func object(_ depth: Int) -> String {
            let members = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                "\"" + names.randomElement(using: &generator)! + "\":" + value(depth)
            }
            return "{" + members.joined(separator: ", ") + "}"
        }
        let alphabet = Array(#"{}[]:,"\u0dDa1 e.-+"#.utf8) + [0xC3, 0xA9, 0xFF, 0x00, 0x09]
        for _ in 0..<4_000 {
            let text = Array(object(1).utf8)
            for bytes in [text] + (0..<5).map({ _ in Self.changed(text, alphabet, &generator) }) {
                let shown = String(decoding: bytes, as: UTF8.self)
                switch (Self.read(bytes), Self.reference(bytes)) {
                case let (.success(value), .success(expected)):
                    #expect(value == expected, "\(shown)")
                case (.success, .failure):
                    #expect(Self.hasZeroWithExponent(bytes), "accepted what JSONDecoder refuses: \(shown)")
                case (.failure(.notJSON), .success):
                    #expect(
                        Self.hasTrailingComma(bytes) || bytes.contains(0) || bytes.starts(with: [0xEF, 0xBB, 0xBF]),
                        "refused what JSONDecoder reads: \(shown)")
                case let (.failure(failure), .success):
                    Issue.record("\(failure) where the checks it replaced accept: \(shown)")
                case let (.failure(failure), .failure(expected)):
                    // JSONDecoder never reads a repeated member's second value: a broken one (or one holding a number no
                    // Double holds) is refused here as not JSON.
                    #expect(
                        Self.kind(failure) == Self.kind(expected) || Self.kind(failure) == 0 || Self.hasZeroWithExponent(bytes),
                        "\(failure) where JSONDecoder gives \(expected): \(shown)")
                }
            }
        }
    }

    static func changed(_ text: [UInt8], _ alphabet: [UInt8], _ generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        var changed = text
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let at = Int.random(in: 0...changed.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where at < changed.count: changed[at] = alphabet.randomElement(using: &generator) ?? 0
            case 1 where at < changed.count: changed.remove(at: at)
            default: changed.insert(alphabet.randomElement(using: &generator) ?? 0, at: at)
            }
        }
        return changed
    }

    static func kind(_ failure: CompactJSON.Failure) -> Int {
        switch failure {
        // JSONDecoder refuses a number no Double holds as it refuses text that is not JSON.
        case .notJSON, .numberOutOfRange: 0
        case .tooDeep: 1
        case .repeatedMember: 2
        }
    }

    /// Calls `body` with each byte outside strings and its offset.
    static func outsideStrings(_ bytes: [UInt8], _ body: (Int, UInt8) -> Bool) -> Bool {
        var inString = false, escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                continue
            }
            if body(offset, byte) { return true }
        }
        return false
    }

    /// Whether a `,` is followed, after whitespace, by `}` or `]` outside a string.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        var comma = false
        return outsideStrings(bytes) { _, byte in
            switch byte {
            case UInt8(ascii: ","): comma = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if comma { return true }
            case 0x20, 0x09, 0x0A, 0x0D: break
            default: comma = false
            }
            return false
        }
    }

    /// Whether a number outside strings has only zeros before an exponent (`0e3`, `0.00e01`): JSONDecoder refuses some of
    /// these (its check that a number read as 0 was written as 0 misses them), though they are JSON numbers worth 0.
    static func hasZeroWithExponent(_ bytes: [UInt8]) -> Bool {
        var inNumber = false, zeros = true
        return outsideStrings(bytes) { _, byte in
            switch byte {
            case UInt8(ascii: "0"), UInt8(ascii: "."):
                if !inNumber { (inNumber, zeros) = (true, true) }
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                if !inNumber { inNumber = true }
                zeros = false
            case UInt8(ascii: "-"):
                if !inNumber { (inNumber, zeros) = (true, true) }
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if inNumber, zeros { return true }
                inNumber = false
            default:
                inNumber = false
            }
            return false
        }
    }
}

extension Result {
    fileprivate var isSuccess: Bool { if case .success = self { true } else { false } }
    fileprivate var isFailure: Bool { !isSuccess }
}
