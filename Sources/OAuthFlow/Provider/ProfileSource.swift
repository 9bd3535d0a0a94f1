import Foundation

/// One source of a profile field, as the descriptor's `profile` section writes it:
///
/// - a path: a root (`id_token`, `userinfo`, `extra`, `callback` or `token`, the token endpoint's answer) and
///   steps into it: `.name` into an object, `[0]` into a list, `["name"]` for a member whose name holds `.`,
///   `/` or other characters (`id_token["https://slack.com/team_id"]`);
/// - several paths joined by ` + `: the text of those present, space-separated (Apple's first and last name);
/// - a template: text with `{path}` placeholders, present when every placeholder is, each value
///   percent-encoded (`https://cdn.discordapp.com/avatars/{userinfo.id}/{userinfo.avatar}.png`);
/// - a constant, `=true` or `=false`: what a provider documents once for every user (Spotify never verifies
///   addresses).
package enum ProfileSource: Sendable, Hashable {
    case path(Path)
    case joined([Path])
    case template([TemplatePart])
    case constant(Bool)

    /// A root and the steps into it.
    package struct Path: Sendable, Hashable {
        package let root: String
        package let steps: [Step]
    }

    package enum Step: Sendable, Hashable {
        case member(String)
        case index(Int)
    }

    package enum TemplatePart: Sendable, Hashable {
        case text(String)
        case value(Path)
    }

    /// The roots a source may read.
    package static let roots = ["id_token", "userinfo", "extra", "callback", "token"]
    /// The longest source read, and the largest list index.
    static let maximumLength = 500
    static let maximumIndex = 999

    /// The source `text` writes.
    ///
    /// - Throws: A sentence saying what is wrong with it, for the resolver's refusal.
    package init(parsing text: String) throws(ProfileSourceProblem) {
        guard text.count <= Self.maximumLength else { throw ProfileSourceProblem("is longer than \(Self.maximumLength) characters") }
        switch text {
        case "=true": self = .constant(true)
        case "=false": self = .constant(false)
        case _ where text.contains("{"):
            self = .template(try Self.template(text))
        case _ where text.contains(" + "):
            self = .joined(try text.components(separatedBy: " + ").map { part throws(ProfileSourceProblem) in try Self.path(part) })
        default:
            self = .path(try Self.path(text))
        }
    }

    /// The roots it reads.
    package var readRoots: Set<String> {
        switch self {
        case .path(let path): return [path.root]
        case .joined(let paths): return Set(paths.map(\.root))
        case .template(let parts):
            return Set(parts.compactMap { if case .value(let path) = $0 { return path.root } else { return nil } })
        case .constant: return []
        }
    }

    /// Its value among `documents` (by root), or nil when it is not present.
    package func value(in documents: [String: JSONValue]) -> JSONValue? {
        switch self {
        case .path(let path):
            return path.value(in: documents)
        case .joined(let paths):
            let texts = paths.compactMap { $0.value(in: documents).flatMap(ProfileSource.text) }
            return texts.isEmpty ? nil : .string(texts.joined(separator: " "))
        case .template(let parts):
            var result = ""
            for part in parts {
                switch part {
                case .text(let text): result += text
                case .value(let path):
                    guard let text = path.value(in: documents).flatMap(ProfileSource.text),
                        let encoded = text.addingPercentEncoding(withAllowedCharacters: Self.unreserved)
                    else { return nil }
                    result += encoded
                }
            }
            return .string(result)
        case .constant(let flag):
            return .bool(flag)
        }
    }

    /// RFC 3986 §2.3: what a filled-in value may hold unencoded.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Text of a string or integer value (GitHub's numeric `id`); other values are not text.
    package static func text(_ value: JSONValue) -> String? {
        switch value {
        case let .string(text): return text.isEmpty ? nil : text
        case let .number(number) where number == number.rounded() && abs(number) < 9e15: return String(Int64(number))
        default: return nil
        }
    }

    private static func template(_ text: String) throws(ProfileSourceProblem) -> [TemplatePart] {
        var parts: [TemplatePart] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw ProfileSourceProblem("opens `{` without closing it") }
            parts.append(.value(try path(String(rest[rest.index(after: open)..<close]))))
            rest = rest[rest.index(after: close)...]
        }
        guard !rest.contains("}") else { throw ProfileSourceProblem("closes `}` without opening it") }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }

    package static func path(_ text: String) throws(ProfileSourceProblem) -> Path {
        let text = text.trimmingCharacters(in: .whitespaces)
        let nameCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:-")
        var rest = Substring(text)
        let root = String(rest.prefix { $0 != "." && $0 != "[" })
        guard roots.contains(root) else {
            throw ProfileSourceProblem("`\(text)` starts with `\(root)`, which is not one of \(roots.map { "`\($0)`" }.joined(separator: ", "))")
        }
        rest = rest.dropFirst(root.count)
        var steps: [Step] = []
        while let first = rest.first {
            if first == "." {
                let name = rest.dropFirst().prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty, name.unicodeScalars.allSatisfy(nameCharacters.contains) else {
                    throw ProfileSourceProblem("`\(text)` has a step `.\(name)` that is not a plain name; write `[\"\(name)\"]` for any other")
                }
                steps.append(.member(String(name)))
                rest = rest.dropFirst(1 + name.count)
            } else if rest.hasPrefix("[\"") {
                guard let end = rest.range(of: "\"]") else { throw ProfileSourceProblem("`\(text)` opens `[\"` without `\"]`") }
                let name = rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound]
                guard !name.isEmpty, !name.contains("\"") else { throw ProfileSourceProblem("`\(text)` has an empty or quoted member name") }
                steps.append(.member(String(name)))
                rest = rest[end.upperBound...]
            } else if first == "[" {
                guard let end = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<end]),
                    (0...maximumIndex).contains(index)
                else { throw ProfileSourceProblem("`\(text)` has a list index that is not a number from 0 to \(maximumIndex)") }
                steps.append(.index(index))
                rest = rest[rest.index(after: end)...]
            } else {
                throw ProfileSourceProblem("`\(text)` has `\(first)` where `.`, `[` or the end belongs")
            }
        }
        guard !steps.isEmpty else { throw ProfileSourceProblem("`\(text)` names a root and nothing in it") }
        return Path(root: root, steps: steps)
    }
}

extension ProfileSource.Path {
    /// Its value among `documents` (by root); JSON `null` counts as absent.
    func value(in documents: [String: JSONValue]) -> JSONValue? {
        var value = documents[root]
        for step in steps {
            switch (step, value) {
            case (.member(let name), .object(let object)?): value = object[name]
            case (.index(let index), .array(let items)?): value = items.indices.contains(index) ? items[index] : nil
            default: return nil
            }
        }
        return value == .null ? nil : value
    }
}

/// Why a profile source cannot be read.
package struct ProfileSourceProblem: Error, Sendable {
    package let reason: String
    init(_ reason: String) { self.reason = reason }
}
