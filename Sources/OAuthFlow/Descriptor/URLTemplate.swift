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
    public var placeholders: [Placeholder] {
        var result: [Placeholder] = []
        var part = Part.scheme
        var name: String?
        var previous: Character = " "
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if var current = name {
                if character == "}" {
                    result.append(Placeholder(name: current, part: part))
                    name = nil
                } else {
                    current.append(character)
                    name = current
                }
            } else {
                switch character {
                case "{": name = ""
                case "/" where part == .scheme && previous == "/": part = .host
                case "/" where part == .host: part = .path
                case "?" where part != .fragment && part != .query: part = .query
                case "#": part = .fragment
                default: break
                }
            }
            previous = character
            index = text.index(after: index)
        }
        return result
    }

    /// The scheme written in the template, lowercased, if it has one.
    public var scheme: String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
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
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
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
        if text.contains(where: { $0.isWhitespace }) { return "it contains white space" }
        if text.filter({ $0 == "{" }).count != text.filter({ $0 == "}" }).count { return "its braces do not pair up" }
        guard let scheme else { return "it has no scheme" }
        guard scheme == "https" || scheme == "http" else { return "the scheme must be https (or http for loopback)" }
        guard let url = sampleURL, let host = url.host, !host.isEmpty else { return "it has no host" }
        return nil
    }

    /// The host as written (placeholders left in), if the template has one.
    public var hostText: String? {
        guard let start = text.range(of: "://")?.upperBound else { return nil }
        let rest = text[start...]
        let end = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
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
