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
    ///   - token: The token endpoint's answer beyond the standard members (``TokenSet/additionalFields``), for
    ///     `token.` sources.
    package static func map(
        _ mapping: ProfileMapping, idToken: [String: JSONValue]?, userInfo: [String: JSONValue]?,
        extra: JSONValue? = nil, callback: [String: JSONValue]? = nil, token: [String: JSONValue]? = nil
    ) -> UserProfile {
        var documents: [String: JSONValue] = [:]
        documents["id_token"] = idToken.map(JSONValue.object)
        documents["userinfo"] = userInfo.map(JSONValue.object)
        documents["extra"] = extra
        documents["callback"] = callback.map(JSONValue.object)
        documents["token"] = token.map(JSONValue.object)
        func first(_ sources: [String]) -> JSONValue? {
            for source in sources {
                // An empty string is as good as absent: the next source is tried (Wikimedia's empty `realname`).
                if let value = (try? ProfileSource(parsing: source))?.value(in: documents), value != .string("") { return value }
            }
            return nil
        }
        let email = first(mapping.email).flatMap(ProfileSource.text)
        // The flag is about the address: without one it says nothing (X's `=true` stands for its `confirmed_email`).
        return UserProfile(
            subject: first(mapping.subject).flatMap(ProfileSource.text), name: first(mapping.name).flatMap(ProfileSource.text),
            email: email, emailVerified: email == nil ? nil : first(mapping.emailVerified).flatMap(flag),
            picture: first(mapping.picture).flatMap(ProfileSource.text))
    }

    /// A boolean, the strings `"true"`/`"false"`, or the numbers and strings 1 and 0 (Zoom's `verified: 1`).
    private static func flag(_ value: JSONValue) -> Bool? {
        switch value {
        case let .bool(flag): return flag
        case .string("true"), .string("1"): return true
        case .string("false"), .string("0"): return false
        case .number(1): return true
        case .number(0): return false
        default: return nil
        }
    }

    /// Narrows an extra call's answer: the first element of a list whose `field` is true.
    ///
    /// - Parameters:
    ///   - answer: The extra call's answer.
    ///   - field: The field that must be `true` (`profile.extra_call.pick_where`); nil keeps the answer whole.
    ///   - list: The member of an answer that is an object holding the list (`profile.extra_call.list`, Bitbucket's
    ///     `values`); nil when the answer is the list.
    public static func pick(_ answer: JSONValue, where field: String?, in list: String? = nil) -> JSONValue? {
        guard let field else { return answer }
        var answer = answer
        if let list {
            guard case let .object(members) = answer, let inner = members[list] else { return nil }
            answer = inner
        }
        guard case let .array(items) = answer else { return nil }
        return items.first { item in
            if case let .object(object) = item, case .bool(true)? = object[field] { return true }
            return false
        }
    }
}
