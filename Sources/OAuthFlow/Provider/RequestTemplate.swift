import Foundation

/// A header or query value of a profile request (`userinfo.headers`, `userinfo.query`), its descriptor
/// variables already filled: text with `{client_id}` and `{token.…}` placeholders, the second a path
/// into the token endpoint's answer (``ProfileSource``), filled when the request is made.
package struct RequestTemplate: Sendable, Hashable {
    package enum Part: Sendable, Hashable {
        case text(String)
        case clientID
        case token(ProfileSource.Path)
    }

    package let parts: [Part]

    /// - Throws: A sentence saying what is wrong, for the resolver's refusal.
    package init(parsing text: String) throws(ProfileSourceProblem) {
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ProfileSourceProblem("holds a control character, which no header or query value may carry")
        }
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw ProfileSourceProblem("opens `{` without closing it") }
            let name = String(rest[rest.index(after: open)..<close])
            if name == "client_id" {
                parts.append(.clientID)
            } else if Self.isFilledAtRequest(name) {
                let path = try ProfileSource.path(name)
                // At any depth (`{token.authed_user.refresh_token}`): the access token goes where `userinfo.placement`
                // says, and no other token or secret of the answer is sent.
                if let member = path.secretMember {
                    throw ProfileSourceProblem(
                        "names `\(member)` of the token answer, a token or a secret, which is never sent; the access token goes where `userinfo.placement` says"
                    )
                }
                parts.append(.token(path))
            } else {
                throw ProfileSourceProblem("names `{\(name)}`, which is not `{client_id}`, a `{token.…}` field or a variable with a value")
            }
            rest = rest[rest.index(after: close)...]
        }
        guard !rest.contains("}") else { throw ProfileSourceProblem("closes `}` without opening it") }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    /// The placeholders filled when the request is made, which resolving leaves in place.
    static func requestPlaceholders(in text: String) -> Set<String> {
        Set(URLTemplate(text).placeholders.map(\.name).filter(isFilledAtRequest))
    }

    /// Whether a placeholder is filled when the request is made: `{client_id}` or a `{token.…}` path.
    static func isFilledAtRequest(_ name: String) -> Bool {
        name == "client_id" || name.hasPrefix("token.") || name.hasPrefix("token[")
    }

    /// The value for a request by `clientID` with the token answer's other fields `token`.
    ///
    /// - Throws: A sentence naming the field the answer lacks, or that holds a control character.
    package func rendered(clientID: String, token: [String: JSONValue]) throws(ProfileSourceProblem) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .clientID: result += clientID
            case .token(let path):
                guard let value = path.value(in: ["token": .object(token)]).flatMap(ProfileSource.text) else {
                    throw ProfileSourceProblem("the token answer has no `\(path.written)`, which the profile request sends")
                }
                guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw ProfileSourceProblem("the token answer's `\(path.written)` holds a control character; it is not sent")
                }
                result += value
            }
        }
        return result
    }
}

extension ProfileSource.Path {
    /// The path as a descriptor writes it, for messages.
    var written: String {
        steps.reduce(root) { text, step in
            switch step {
            case .member(let name): text + "." + name
            case .index(let index): text + "[\(index)]"
            }
        }
    }
}
