import Foundation

/// One source of a profile field, as the descriptor's `profile` section writes it: a path, several paths joined by
/// ` + `, a template with `{path}` placeholders, or a constant (`=true`, `=false`).
package enum ProfileSource: Sendable, Hashable {
    case path(Path)
    case joined([Path])
    case template([TemplatePart])
    case constant(Bool)

    /// A root and the steps into it.
    package struct Path: Sendable, Hashable {
        package let root: String
        package let steps: [Step]

        /// The first step, at any depth, of a path into the token answer that names a token or a secret
        /// (`token.authed_user.refresh_token`, `token.data["accessToken"]`), or nil. Such a value is never sent
        /// in a profile request nor shown in a profile: the engine keeps the answer's own tokens apart.
        package var secretMember: String? {
            guard root == "token" else { return nil }
            for case .member(let name) in steps where Self.namesSecret(name) { return name }
            return nil
        }

        /// Whether a member name is a token's or a secret's, by rule rather than by spelling, however it is cased or
        /// joined: folded to lower case with `-` and each lower-to-upper case step made `_` (`refreshToken`,
        /// `Refresh-Token` and `refresh_token` are one name), it ends in `token`, `secret`, `password` or `assertion`
        /// (Slack's `bot_access_token`, `subject_token`, `client_assertion`), contains `access_token`,
        /// `refresh_token`, `id_token` or `client_secret` (with or without the `_`), or is an authorization or device
        /// code (`code`, `device_code`). Only ``harmlessNames`` pass whatever they spell.
        static func namesSecret(_ name: String) -> Bool {
            let folded = folded(name)
            if harmlessNames.contains(folded) { return false }
            // A list of them (`tokens`, `secrets`) is read as one.
            let singular = folded.hasSuffix("s") ? String(folded.dropLast()) : folded
            if ["token", "secret", "password", "assertion"].contains(where: { folded.hasSuffix($0) || singular.hasSuffix($0) }) { return true }
            // Written without a separator too (`accesstoken_v2`).
            let joined = folded.replacingOccurrences(of: "_", with: "")
            if ["access_token", "refresh_token", "id_token", "client_secret"].contains(where: {
                folded.contains($0) || joined.contains($0.replacingOccurrences(of: "_", with: ""))
            }) {
                return true
            }
            return folded == "code" || folded == "device_code"
        }

        /// Names of the token answer that say something about a token without being one (RFC 6749 §5.1).
        static let harmlessNames: Set<String> = ["token_type", "expires_in"]

        /// `name` in lower case, with `-` and each step from a lower-case letter or a digit to an upper-case one as `_`.
        static func folded(_ name: String) -> String {
            var out = ""
            var previous: Character?
            for character in name {
                if character == "-" {
                    out.append("_")
                } else if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                    out += "_" + character.lowercased()
                } else {
                    out += character.lowercased()
                }
                previous = character
            }
            return out
        }
    }

    /// The paths it reads.
    package var paths: [Path] {
        switch self {
        case .path(let path): return [path]
        case .joined(let paths): return paths
        case .template(let parts): return parts.compactMap { if case .value(let path) = $0 { return path } else { return nil } }
        case .constant: return []
        }
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
        if let path = Self.plainPath(text) {
            self = .path(path)
            return
        }
        // Characters counted only for a text of more bytes than the limit (no more characters than bytes), and an
        // ASCII text's brace found by its byte: Foundation's substring search cost thousands of instructions a source.
        guard text.utf8.count <= Self.maximumLength || text.count <= Self.maximumLength else {
            throw ProfileSourceProblem("is longer than \(Self.maximumLength) characters")
        }
        switch text {
        case "=true": self = .constant(true)
        case "=false": self = .constant(false)
        case _ where Self.holdsBrace(text):
            self = .template(try Self.template(text))
        default:
            if let parts = Self.joinedParts(text) {
                self = .joined(try parts.map { part throws(ProfileSourceProblem) in try Self.path(String(part)) })
            } else {
                self = .path(try Self.path(text))
            }
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

    /// Whether `text` holds `{` as Foundation's `contains(_:)` finds it: by the byte when every byte is ASCII (each one
    /// character then), by Foundation otherwise.
    private static func holdsBrace(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { UTF8Search.isASCII($0) } ? UTF8Search.contains(UInt8(ascii: "{"), in: text) : text.contains("{")
    }

    private static func template(_ text: String) throws(ProfileSourceProblem) -> [TemplatePart] {
        // In ASCII text every byte is a character (a CR LF pair aside, which holds no brace): braces are found by
        // their bytes, where walking characters costs a grapheme break test at each.
        let ascii = text.utf8.allSatisfy { $0 < 0x80 }
        func first(_ brace: Unicode.Scalar, in part: Substring) -> Substring.Index? {
            ascii ? part.utf8.firstIndex(of: UInt8(ascii: brace)) : part.firstIndex(of: Character(brace))
        }
        func after(_ index: Substring.Index, in part: Substring) -> Substring.Index {
            ascii ? part.utf8.index(after: index) : part.index(after: index)
        }
        var parts: [TemplatePart] = []
        var rest = Substring(text)
        while let open = first("{", in: rest) {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = first("}", in: rest[open...]) else { throw ProfileSourceProblem("opens `{` without closing it") }
            parts.append(.value(try path(String(rest[after(open, in: rest)..<close]))))
            rest = rest[after(close, in: rest)...]
        }
        guard first("}", in: rest) == nil else { throw ProfileSourceProblem("closes `}` without opening it") }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }

    package static func path(_ text: String) throws(ProfileSourceProblem) -> Path {
        if let path = plainPath(text) { return path }
        // Every descriptor's profile is read when it is resolved or linted, the default sources included: no
        // Foundation here (a CharacterSet made for each source, and NSString's trimming and search, were a third of
        // a lint of descriptors with profiles).
        let text = WhiteSpace.trimmed(text)
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
                guard !name.isEmpty, name.unicodeScalars.allSatisfy(isNameScalar) else {
                    throw ProfileSourceProblem("`\(text)` has a step `.\(name)` that is not a plain name; write `[\"\(name)\"]` for any other")
                }
                steps.append(.member(String(name)))
                rest = rest.dropFirst(1 + name.count)
            } else if rest.hasPrefix("[\"") {
                // Searched after the `["`: `["]` has no name (it crashed the reading when the search began at its `"`).
                let nameStart = rest.index(rest.startIndex, offsetBy: 2)
                guard let end = closingQuoteAndBracket(in: rest[nameStart...]) else {
                    throw ProfileSourceProblem("`\(text)` opens `[\"` without `\"]`")
                }
                let name = rest[nameStart..<end.lowerBound]
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

    /// The path of a source written the common way, read from its bytes: ASCII, no white space, braces or other
    /// control characters, a root and `.name`, `["name"]` and `[0]` steps that read. nil for anything else, which
    /// the reading above takes on (and reads as the same path, or refuses with its reason): this only answers
    /// sooner, for the sources every descriptor has (the default ones are read for each).
    static func plainPath(_ text: String) -> Path? {
        guard text.utf8.count <= maximumLength else { return nil }
        let read = text.utf8.withContiguousStorageIfAvailable { bytes -> Path? in
            let (dot, open, close, quote) = (UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""))
            var index = 0
            while index < bytes.count, bytes[index] != dot, bytes[index] != open { index += 1 }
            let root = bytes[0..<index]
            guard roots.contains(where: { $0.utf8.elementsEqual(root) }) else { return nil }
            var steps: [Step] = []
            while index < bytes.count {
                if bytes[index] == dot {
                    let start = index + 1
                    index = start
                    while index < bytes.count, bytes[index] != dot, bytes[index] != open {
                        guard isNameByte(bytes[index]) else { return nil }
                        index += 1
                    }
                    guard index > start else { return nil }
                    steps.append(.member(String(decoding: bytes[start..<index], as: UTF8.self)))
                } else if bytes[index] == open, index + 1 < bytes.count, bytes[index + 1] == quote {
                    // `["name"]`: the name ends at the first `"`, which `]` must follow.
                    let start = index + 2
                    index = start
                    while index < bytes.count, bytes[index] != quote {
                        guard bytes[index] > 0x20, bytes[index] < 0x7F, bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: "}")
                        else { return nil }
                        index += 1
                    }
                    guard index > start, index + 1 < bytes.count, bytes[index + 1] == close else { return nil }
                    steps.append(.member(String(decoding: bytes[start..<index], as: UTF8.self)))
                    index += 2
                } else if bytes[index] == open {
                    // `[0]`: one to three digits.
                    var value = 0
                    let start = index + 1
                    index = start
                    while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), index - start < 3 {
                        value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                        index += 1
                    }
                    guard index > start, index < bytes.count, bytes[index] == close else { return nil }
                    steps.append(.index(value))
                    index += 1
                } else {
                    return nil
                }
            }
            return steps.isEmpty ? nil : Path(root: String(decoding: root, as: UTF8.self), steps: steps)
        }
        return read ?? nil
    }

    /// A `.name` step's bytes: ASCII letters, digits, `_`, `:` and `-`.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x3A, 0x2D: true
        default: false
        }
    }

    /// A `.name` step's characters: ASCII letters, digits, `_`, `:` and `-`.
    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x3A, 0x2D: true
        default: false
        }
    }

    /// The parts of `text` between ` + ` (as three characters), empty ones included; nil when it holds none. By bytes
    /// in ASCII text, where each is a character, as in ``template(_:)``; else character by character.
    private static func joinedParts(_ text: String) -> [Substring]? {
        text.utf8.allSatisfy({ $0 < 0x80 })
            ? joinedParts(text, in: text.utf8, plus: UInt8(ascii: "+"), space: UInt8(ascii: " "))
            : joinedParts(text, in: text, plus: "+", space: " ")
    }

    /// ``joinedParts(_:)`` over one view of `text`, its bytes or its characters, whose indices are the text's.
    private static func joinedParts<View: BidirectionalCollection>(
        _ text: String, in view: View, plus: View.Element, space: View.Element
    ) -> [Substring]? where View.Index == String.Index, View.Element: Equatable {
        var parts: [Substring] = []
        var partStart = view.startIndex
        var index = view.startIndex
        while let found = view[index...].firstIndex(of: plus) {
            index = view.index(after: found)
            guard found > partStart, view[view.index(before: found)] == space, index < view.endIndex, view[index] == space else { continue }
            parts.append(text[partStart..<view.index(before: found)])
            index = view.index(after: index)
            partStart = index
        }
        guard !parts.isEmpty else { return nil }
        parts.append(text[partStart...])
        return parts
    }

    /// Where `"]` first stands in `text`, as two characters.
    private static func closingQuoteAndBracket(in text: Substring) -> Range<Substring.Index>? {
        var from = text.startIndex
        while let quote = text[from...].firstIndex(of: "\"") {
            let next = text.index(after: quote)
            if next < text.endIndex, text[next] == "]" { return quote..<text.index(after: next) }
            from = next
        }
        return nil
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
