import Foundation

/// A URL that may contain `{variable}` placeholders, as written in a descriptor.
package struct URLTemplate: Sendable, Hashable, CustomStringConvertible {
    /// Which part of the URL a placeholder stands in.
    public enum Part: String, Sendable {
        case scheme, host, path, query, fragment
    }

    /// One `{name}` occurrence.
    public struct Placeholder: Sendable, Hashable {
        public var name: String
        public var part: Part
    }

    /// The template text.
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    public var description: String { text }

    /// The placeholders in the order they appear.
    ///
    /// One pass over the UTF-8 bytes: braces, slashes, `?` and `#` are ASCII, and no
    /// byte of a multi-byte character is.
    public var placeholders: [Placeholder] {
        // A URL without a brace (found by `memchr`) has none, and allocates nothing; the list of one that has is made
        // with room for a few, where counting the braces first read every byte once more.
        guard UTF8Search.contains(UInt8(ascii: "{"), in: text) else { return [] }
        var text = text
        return text.withUTF8 { bytes in
            var result: [Placeholder] = []
            result.reserveCapacity(4)
            var part = Part.scheme
            var nameStart: Int?
            var afterSlash = false
            let marks = Self.placeholderMarks
            for index in bytes.indices {
                let byte = bytes[index]
                // Most bytes mark nothing: letters (two comparisons, no load), and the rest one table load and one test.
                guard byte < UInt8(ascii: "@") || byte >= UInt8(ascii: "{"), marks[Int(byte)] else {
                    afterSlash = false
                    continue
                }
                if let start = nameStart {
                    if byte == UInt8(ascii: "}") {
                        result.append(
                            Placeholder(name: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self), part: part))
                        nameStart = nil
                    }
                } else {
                    switch byte {
                    case UInt8(ascii: "{"): nameStart = index + 1
                    case UInt8(ascii: "/") where part == .scheme && afterSlash: part = .host
                    case UInt8(ascii: "/") where part == .host: part = .path
                    case UInt8(ascii: "?") where part != .fragment && part != .query: part = .query
                    case UInt8(ascii: "#"): part = .fragment
                    default: break
                    }
                }
                afterSlash = byte == UInt8(ascii: "/")
            }
            return result
        }
    }

    /// The bytes ``placeholders`` looks at: braces and what moves it from one part of the URL to the next.
    private static let placeholderMarks: [Bool] = (0...255).map { (byte: Int) -> Bool in
        "{}/?#".utf8.contains { Int($0) == byte }
    }

    /// The scheme written in the template, lowercased, if it has one.
    public var scheme: String? {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = text[..<colon]
        if scheme.utf8.allSatisfy({ $0 < 0x80 }) {
            var lowercase = true
            for byte in scheme.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"),
                    UInt8(ascii: "."):
                    continue
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): lowercase = false
                default: return nil
                }
            }
            return lowercase ? String(scheme) : scheme.lowercased()
        }
        return scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } ? scheme.lowercased() : nil
    }

    /// Whether the scheme is `http` or `https` (in any case), read from the bytes: what every
    /// descriptor URL must have, checked without making a string.
    package var schemeIsHTTP: (http: Bool, https: Bool) {
        var text = text
        return text.withUTF8 { Self.schemeIsHTTP($0) }
    }

    private static func schemeIsHTTP(_ bytes: UnsafeBufferPointer<UInt8>) -> (http: Bool, https: Bool) {
        func lowered(_ index: Int) -> UInt8 {
            let byte = bytes[index]
            return (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
        }
        guard bytes.count >= 5, lowered(0) == UInt8(ascii: "h"), lowered(1) == UInt8(ascii: "t"), lowered(2) == UInt8(ascii: "t"),
            lowered(3) == UInt8(ascii: "p")
        else { return (false, false) }
        if bytes[4] == UInt8(ascii: ":") { return (true, false) }
        return (false, bytes.count >= 6 && lowered(4) == UInt8(ascii: "s") && bytes[5] == UInt8(ascii: ":"))
    }

    /// The text with each `{name}` for which `value` answers replaced, in one pass.
    ///
    /// A placeholder replaced by the empty string takes one adjacent `.` or `/` with it
    /// (the `.` after it, else the `.` or `/` before it). Placeholders without a value stay.
    func rendering(_ value: (Substring) -> String?) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = text[...]
        while let open = rest.utf8.firstIndex(of: UInt8(ascii: "{")) {
            out += rest[..<open]
            guard let close = rest.utf8[open...].firstIndex(of: UInt8(ascii: "}")) else {
                // A `{` that never closes is text; what came before it is written already.
                rest = rest[open...]
                break
            }
            let name = rest[rest.index(after: open)..<close]
            var after = rest.index(after: close)
            if let replacement = value(name) {
                if replacement.isEmpty {
                    if after < rest.endIndex, rest[after] == "." {
                        after = rest.index(after: after)
                    } else if let last = out.last, last == "." || last == "/" {
                        out.removeLast()
                    }
                }
                out += replacement
            } else {
                out += rest[open..<after]
            }
            rest = rest[after...]
        }
        out += rest
        return out
    }

    /// Why the template cannot be an absolute http(s) URL, or nil when it can.
    ///
    /// Read from the bytes, with each `{placeholder}` standing for a value that fits where it
    /// stands: no URL parser runs, so a descriptor's dozen URLs cost microseconds to check.
    public var shapeProblem: String? {
        if case let .shape(reason) = problem(maximumPlaceholders: .max) { reason } else { nil }
    }

    /// What keeps the template from being a descriptor's URL.
    enum Problem: Equatable {
        /// More `{placeholders}` than allowed.
        case placeholders(Int)
        /// ``shapeProblem``.
        case shape(String)
    }

    /// Too many placeholders or ``shapeProblem``, from one pass over the bytes.
    func problem(maximumPlaceholders: Int) -> Problem? {
        var text = text
        return text.withUTF8 { Self.problem(of: $0, maximumPlaceholders: maximumPlaceholders) }
    }

    /// ``problem(maximumPlaceholders:)`` of a template's UTF-8 bytes, read where they are (a
    /// descriptor's tree checks its URLs without making a `String` of them); text is made only for
    /// a problem beyond ASCII.
    static func problem(of bytes: UnsafeBufferPointer<UInt8>, maximumPlaceholders: Int) -> Problem? {
        var placeholders = 0
        var seen: UInt8 = 0
        // Each `{` closes with a `}` before the next `{`: placeholders neither nest nor stand open.
        var inPlaceholder = false, bracesPair = true
        let classes = ByteClass.table
        func classify(_ byte: UInt8) {
            let kind = classes[Int(byte)]
            if kind == 0 { return }
            seen |= kind
            if kind == ByteClass.openBrace {
                if inPlaceholder { bracesPair = false }
                inPlaceholder = true
                placeholders += 1
            } else if kind == ByteClass.closeBrace {
                if !inPlaceholder { bracesPair = false }
                inPlaceholder = false
            }
        }
        // Most bytes are printable ASCII below `{` other than `%`, of no class: eight at a time while a word holds only
        // those, then one by one.
        var index = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                if !ByteClass.isPlain(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))) {
                    for byte in UnsafeBufferPointer(rebasing: bytes[index..<index + 8]) { classify(byte) }
                }
                index += 8
            }
        }
        for byte in UnsafeBufferPointer(rebasing: bytes[index...]) { classify(byte) }
        let nonASCII = seen & ByteClass.nonASCII != 0
        if placeholders > maximumPlaceholders { return .placeholders(placeholders) }
        let text = nonASCII ? String(decoding: bytes, as: UTF8.self) : ""
        if seen & ByteClass.space != 0 || (nonASCII && text.contains(where: \.isWhitespace)) { return .shape("it contains white space") }
        if seen & ByteClass.control != 0 { return .shape("it contains a control character") }
        // Beyond ASCII: the C1 controls, and the invisible format characters that change how a URL reads (U+202E).
        if nonASCII, let hidden = text.unicodeScalars.first(where: { [.control, .format].contains($0.properties.generalCategory) }) {
            let code = String(hidden.value, radix: 16, uppercase: true)
            return .shape("it contains the control or invisible character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)")
        }
        if !bracesPair || inPlaceholder { return .shape("its braces do not pair up") }
        let (http, https) = schemeIsHTTP(bytes)
        if !http && !https {
            guard let scheme = URLTemplate(String(decoding: bytes, as: UTF8.self)).scheme, !scheme.isEmpty else { return .shape("it has no scheme") }
            return .shape("the scheme must be https (or http for loopback)")
        }
        return authorityProblem(bytes, holdsPercent: seen & ByteClass.percent != 0).map(Problem.shape)
    }

    /// What each byte is to ``problem(of:maximumPlaceholders:)``: flags, 0 for most.
    private enum ByteClass {
        static let space: UInt8 = 1, control: UInt8 = 2, openBrace: UInt8 = 4, closeBrace: UInt8 = 8, nonASCII: UInt8 = 16
        static let percent: UInt8 = 32

        /// Whether every byte of `word` is printable ASCII below `{` other than `%` (of no class). Each test is exact
        /// for each byte: no carry or borrow from one byte reaches the next.
        static func isPlain(_ word: UInt64) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
            // Below 0x80 (checked first), adding 0x5F sets a byte's high bit from 0x21 on, and adding 0x05 from 0x7B on.
            guard word & high == 0, (word &+ 0x5F &* ones) & high == high, (word &+ 0x05 &* ones) & high == 0 else { return false }
            // No byte that was `%`.
            return UTF8Search.zeroBytes(word ^ (0x25 &* ones)) == 0
        }

        static let table: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
            switch byte {
            case 0x20, 0x09...0x0D: Self.space
            case 0..<0x20, 0x7F: Self.control
            case Int(UInt8(ascii: "{")): Self.openBrace
            case Int(UInt8(ascii: "}")): Self.closeBrace
            case 0x80...: Self.nonASCII
            case Int(UInt8(ascii: "%")): Self.percent
            default: 0
            }
        }
    }

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Why the URL after `scheme:` cannot name a server: no host, a user or password, a host no
    /// name or address can be, a port outside 1–65535, or a `%` that escapes nothing.
    ///
    /// Plain loops over integer positions: generic searches over a slice of the bytes cost
    /// hundreds of instructions a call here, where a descriptor's dozen URLs are checked per file.
    /// `holdsPercent` says whether the bytes hold a `%` at all: most URLs have none to check.
    private static func authorityProblem(_ utf8: Bytes, holdsPercent: Bool) -> String? {
        var colon = 0
        while colon < utf8.count, utf8[colon] != UInt8(ascii: ":") { colon += 1 }
        guard utf8.count > colon + 2, utf8[colon + 1] == UInt8(ascii: "/"), utf8[colon + 2] == UInt8(ascii: "/") else {
            return "it has no host"
        }
        let start = colon + 3
        // One pass over the authority: where it ends, whether it holds an `@`, and its last `:` outside placeholders
        // (where a port would start).
        var end = start
        var holdsAt = false, inPlaceholder = false
        var lastColon: Int?
        scan: while end < utf8.count {
            switch utf8[end] {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): break scan
            case UInt8(ascii: "@"): holdsAt = true
            case UInt8(ascii: "{"): inPlaceholder = true
            case UInt8(ascii: "}"): inPlaceholder = false
            case UInt8(ascii: ":") where !inPlaceholder: lastColon = end
            default: break
            }
            end += 1
        }
        if holdsAt { return "it names a user or password before `@`; a descriptor's URLs carry no credentials" }
        var portStart: Int?
        if start < end, utf8[start] == UInt8(ascii: "[") {
            var close = start
            while close < end, utf8[close] != UInt8(ascii: "]") { close += 1 }
            guard close < end else { return "its IPv6 address has no closing `]`" }
            let address = text(utf8, (start + 1)..<close)
            var parsed = in6_addr()
            guard inet_pton(AF_INET6, address, &parsed) == 1 else { return "`[\(address)]` is not an IPv6 address" }
            if close + 1 < end {
                guard utf8[close + 1] == UInt8(ascii: ":") else { return "only a `:port` may follow its IPv6 address" }
                portStart = close + 2
            }
        } else {
            portStart = lastColon.map { $0 + 1 }
            if let problem = hostNameProblem(utf8, start..<(lastColon ?? end)) { return problem }
        }
        if let portStart, let problem = portProblem(utf8, portStart..<end) { return problem }
        guard holdsPercent else { return nil }
        // A `%` outside placeholders after the authority escapes two hex digits.
        var inside = false
        for index in end..<utf8.count {
            let byte = utf8[index]
            if inside {
                if byte == UInt8(ascii: "}") { inside = false }
            } else if byte == UInt8(ascii: "{") {
                inside = true
            } else if byte == UInt8(ascii: "%"),
                !(index + 2 < utf8.count && isHexDigit(utf8[index + 1]) && isHexDigit(utf8[index + 2]))
            {
                return "it has a `%` not followed by two hex digits"
            }
        }
        return nil
    }

    /// Why the text after the host's `:` is no port from 1 to 65535; a placeholder stands for
    /// digits (the resolver checks the port its value makes).
    private static func portProblem(_ utf8: Bytes, _ range: Range<Int>) -> String? {
        var digits = 0, number = 0, inside = false, numeric = true
        for index in range {
            let byte = utf8[index]
            if inside {
                if byte == UInt8(ascii: "}") { inside = false }
                continue
            }
            var digit = 1
            if byte == UInt8(ascii: "{") {
                inside = true
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                digit = Int(byte - UInt8(ascii: "0"))
            } else {
                numeric = false
            }
            digits += 1
            if digits <= 5 { number = number * 10 + digit }
        }
        if digits == 0 { return "it has a `:` after the host but no port" }
        guard numeric, digits <= 5, (1...65_535).contains(number) else {
            return "its port `\(text(utf8, range))` is not a number from 1 to 65535"
        }
        return nil
    }

    /// Why a host name (not a bracketed address) cannot be one: no host, a character no host name
    /// holds, an empty label or one that begins or ends with `-`, or digits that are no IPv4 address.
    /// A placeholder stands for a label's worth of letters.
    private static func hostNameProblem(_ utf8: Bytes, _ host: Range<Int>) -> String? {
        if host.isEmpty { return "it has no host" }
        // One pass over the labels, a placeholder counting as letters: nothing is allocated unless a name
        // of digits only must be read as an IPv4 address.
        var labelLength = 0, labels = 0
        var first: UInt8 = 0, last: UInt8 = 0
        var digitsOnly = true, emptyLabel = false, hyphenAtEdge = false, inside = false
        var index = host.lowerBound
        let hostBytes = Self.hostBytes
        while index < host.upperBound {
            var byte = utf8[index]
            index += 1
            if inside {
                if byte == UInt8(ascii: "}") { inside = false }
                continue
            }
            if byte == UInt8(ascii: "{") {
                inside = true
                byte = UInt8(ascii: "x")
            } else if !hostBytes[Int(byte)] {
                guard byte < 0x80 else { return "its host is not ASCII; write an internationalised name in its `xn--` form" }
                return "its host holds `\(Character(Unicode.Scalar(byte)))`, which no host name may"
            }
            if byte == UInt8(ascii: ".") {
                // One dot may end a fully qualified name.
                if index == host.upperBound, labelLength > 0 { break }
                labels += 1
                if labelLength == 0 { emptyLabel = true }
                if first == UInt8(ascii: "-") || last == UInt8(ascii: "-") { hyphenAtEdge = true }
                labelLength = 0
                continue
            }
            if labelLength == 0 { first = byte }
            last = byte
            labelLength += 1
            if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { digitsOnly = false }
        }
        // The last label, unless the name ended with a dot that closed an empty one.
        if labelLength > 0 || utf8[host.upperBound - 1] != UInt8(ascii: ".") {
            labels += 1
            if labelLength == 0 { emptyLabel = true }
            if first == UInt8(ascii: "-") || last == UInt8(ascii: "-") { hyphenAtEdge = true }
        }
        if emptyLabel { return "its host `\(text(utf8, host))` has an empty label" }
        if hyphenAtEdge { return "its host `\(text(utf8, host))` has a label that begins or ends with `-`" }
        if digitsOnly {
            var parsed = in_addr()
            let written = text(utf8, host)
            let name = written.hasSuffix(".") ? String(written.dropLast()) : written
            guard labels == 4, inet_pton(AF_INET, name, &parsed) == 1 else { return "`\(name)` is not an IPv4 address" }
        }
        return nil
    }

    /// The bytes in `range` as text, for a message.
    private static func text(_ utf8: Bytes, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: utf8[range]), as: UTF8.self)
    }

    /// A host's bytes outside placeholders: RFC 3986's unreserved and sub-delimiter characters, by byte.
    private static let hostBytes: [Bool] = (0...255).map { (byte: Int) -> Bool in
        guard let byte = UInt8(exactly: byte) else { return false }
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default: return false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    /// The host as written (placeholders left in), if the template has one.
    public var hostText: String? {
        guard let separator = text.firstUTF8Range(of: "://") else { return nil }
        let rest = text[separator.upperBound...]
        let end =
            rest.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
            ?? rest.endIndex
        var host = String(rest[..<end])
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        if host.hasPrefix("[") {
            if let close = host.firstIndex(of: "]") { return String(host[...close]) }
            return host
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        return host.lowercased()
    }

    /// Whether the host is a loopback address or `localhost`.
    public var isLoopback: Bool {
        guard let host = hostText else { return false }
        return Loopback.isLoopbackHost(host)
    }

    /// The template with every placeholder replaced.
    ///
    /// A placeholder whose value is empty disappears together with one adjacent
    /// `.` in a host or `/` in a path, so an optional `{region}.` label or
    /// `/{segment}` drops out cleanly.
    func substituting(_ values: [String: String]) -> String {
        rendering { values[String($0)] }
    }
}
