import Foundation

/// Who signed in, in one shape whatever the provider: its descriptor's `profile` section
/// says where each field is in the ID token, userinfo and an optional extra call.
public struct UserProfile: Sendable, Hashable, Codable {
    /// The user's stable id at the provider.
    public var subject: String?
    public var name: String?
    public var email: String?
    /// Whether the provider verified ``email``; nil when it does not say (never assumed true).
    public var emailVerified: Bool?
    public var picture: String?

    public init(subject: String? = nil, name: String? = nil, email: String? = nil, emailVerified: Bool? = nil, picture: String? = nil) {
        self.subject = subject
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
        self.picture = picture
    }

    /// Maps what a provider said to the profile shape.
    ///
    /// - Parameters:
    ///   - mapping: The descriptor's `profile` section.
    ///   - idToken: The verified ID token's claims (nil for plain OAuth 2.0).
    ///   - userInfo: The userinfo answer, if read.
    ///   - extra: The extra call's answer (already narrowed by `pick_where`), if made.
    ///   - callback: The callback's other parameters (``OAuthClient/SignInOutcome/callback``), for `callback.` sources.
    ///
    /// A source `A + B` joins the text of those of its parts that are present with a space (Apple's first and
    /// last name); it counts as present when one part is.
    package static func map(
        _ mapping: ProfileMapping, idToken: [String: JSONValue]?, userInfo: [String: JSONValue]?,
        extra: JSONValue? = nil, callback: [String: JSONValue]? = nil
    ) -> UserProfile {
        func lookup(_ source: Substring) -> JSONValue? {
            let path = source.split(separator: ".").map(String.init)
            guard let root = path.first else { return nil }
            var value: JSONValue?
            switch root {
            case "id_token": value = idToken.map(JSONValue.object)
            case "userinfo": value = userInfo.map(JSONValue.object)
            case "extra": value = extra
            case "callback": value = callback.map(JSONValue.object)
            default: value = nil
            }
            for key in path.dropFirst() {
                guard case let .object(object)? = value else { return nil }
                value = object[key]
            }
            return value == .null ? nil : value
        }
        func first(_ sources: [String]) -> JSONValue? {
            for source in sources {
                let parts = source.components(separatedBy: " + ")
                if parts.count == 1 {
                    if let value = lookup(Substring(source)) { return value }
                    continue
                }
                let texts = parts.compactMap { lookup(Substring($0.trimmingCharacters(in: .whitespaces))).flatMap(text) }
                if !texts.isEmpty { return .string(texts.joined(separator: " ")) }
            }
            return nil
        }
        return UserProfile(
            subject: first(mapping.subject).flatMap(text), name: first(mapping.name).flatMap(text),
            email: first(mapping.email).flatMap(text), emailVerified: first(mapping.emailVerified).flatMap(flag),
            picture: first(mapping.picture).flatMap(text))
    }

    /// Text of a string or integer value (GitHub's numeric `id`); other values are not text.
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case let .string(text): return text.isEmpty ? nil : text
        case let .number(number) where number == number.rounded() && abs(number) < 9e15: return String(Int64(number))
        default: return nil
        }
    }

    /// A boolean, or the strings `"true"`/`"false"` some providers send.
    private static func flag(_ value: JSONValue) -> Bool? {
        switch value {
        case let .bool(flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        default: return nil
        }
    }

    /// Narrows an extra call's answer: the first element of a list whose `field` is true.
    public static func pick(_ answer: JSONValue, where field: String?) -> JSONValue? {
        guard let field else { return answer }
        guard case let .array(items) = answer else { return nil }
        return items.first { item in
            if case let .object(object) = item, case .bool(true)? = object[field] { return true }
            return false
        }
    }
}
