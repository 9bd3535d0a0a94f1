import Foundation

/// A URL that may contain `{variable}` placeholders, as written in a descriptor.
public struct URLTemplate: Sendable, Hashable, CustomStringConvertible {
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
        var result: [Placeholder] = []
        var part = Part.scheme
        var nameStart: String.Index?
        var previous = UInt8(ascii: " ")
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if let start = nameStart {
                if byte == UInt8(ascii: "}") {
                    result.append(Placeholder(name: String(decoding: utf8[start..<index], as: UTF8.self), part: part))
                    nameStart = nil
                }
            } else {
                switch byte {
                case UInt8(ascii: "{"): nameStart = utf8.index(after: index)
                case UInt8(ascii: "/") where part == .scheme && previous == UInt8(ascii: "/"): part = .host
                case UInt8(ascii: "/") where part == .host: part = .path
                case UInt8(ascii: "?") where part != .fragment && part != .query: part = .query
                case UInt8(ascii: "#"): part = .fragment
                default: break
                }
            }
            previous = byte
            index = utf8.index(after: index)
        }
        return result
    }

    /// The scheme written in the template, lowercased, if it has one.
    public var scheme: String? {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = text[..<colon]
        if scheme.utf8.allSatisfy({ $0 < 0x80 }) {
            let valid = scheme.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    true
                default: false
                }
            }
            return valid ? scheme.lowercased() : nil
        }
        return scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } ? scheme.lowercased() : nil
    }

    /// The URL with every placeholder replaced by `1` (valid as a host label, a port and a path segment), for checks that need a parsed URL.
    public var sampleURL: URL? {
        URL(string: rendering { _ in "1" })
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
            guard let close = rest.utf8[open...].firstIndex(of: UInt8(ascii: "}")) else { break }
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
    public var shapeProblem: String? {
        if containsWhiteSpace { return "it contains white space" }
        var braces = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "{") { braces += 1 } else if byte == UInt8(ascii: "}") { braces -= 1 }
        }
        if braces != 0 { return "its braces do not pair up" }
        guard let scheme else { return "it has no scheme" }
        guard scheme == "https" || scheme == "http" else { return "the scheme must be https (or http for loopback)" }
        guard let url = sampleURL, let host = url.host, !host.isEmpty else { return "it has no host" }
        return nil
    }

    /// Whether any character is white space: bytes for ASCII text, characters otherwise.
    private var containsWhiteSpace: Bool {
        for byte in text.utf8 {
            if byte >= 0x80 { return text.contains(where: { $0.isWhitespace }) }
            if byte == 0x20 || (0x09...0x0D).contains(byte) { return true }
        }
        return false
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
