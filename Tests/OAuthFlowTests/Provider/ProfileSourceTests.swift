import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// The profile source grammar: paths with list indexes and quoted members, the token answer as a root,
/// templates, constants and numeric flags; and the resolver's refusal, positioned, of a source it cannot read.
@Suite struct ProfileSourceTests {
    func json(_ text: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
    }

    func mapping(
        subject: [String] = [], name: [String] = [], email: [String] = [], emailVerified: [String] = [], picture: [String] = []
    ) -> ProfileMapping {
        ProfileMapping(subject: subject, name: name, email: email, emailVerified: emailVerified, picture: picture)
    }

    @Test func aListIndexAndAQuotedMemberAreRead() throws {
        let userInfo = try json(#"{"images":[{"url":"https://i.example/a.png"},{"url":"https://i.example/b.png"}],"https://slack.com/team_id":"T1","a.b":{"c":"dotted"}}"#)
        let profile = UserProfile.map(
            mapping(subject: [#"userinfo["https://slack.com/team_id"]"#], name: [#"userinfo["a.b"].c"#], picture: ["userinfo.images[1].url"]),
            idToken: nil, userInfo: userInfo)
        #expect(profile.subject == "T1" && profile.name == "dotted" && profile.picture == "https://i.example/b.png")
        let absent = UserProfile.map(mapping(picture: ["userinfo.images[5].url", "userinfo.images.url"]), idToken: nil, userInfo: userInfo)
        #expect(absent.picture == nil, "an index past the end, or a member of a list, is absent")
    }

    /// The length limit counts characters, whatever the bytes; a template is told by its `{` in ASCII text (by its byte)
    /// and beyond it (by Foundation's search, as before).
    @Test func theLimitCountsCharactersAndABraceIsACharacter() throws {
        let limit = ProfileSource.maximumLength
        let wide = "userinfo." + String(repeating: "é", count: limit - 9)
        #expect(throws: ProfileSourceProblem.self) { try ProfileSource(parsing: wide) }
        do { _ = try ProfileSource(parsing: wide) } catch { #expect(!error.reason.hasPrefix("is longer than"), "\(error.reason)") }
        do {
            _ = try ProfileSource(parsing: wide + "é")
            Issue.record("a source of more characters than the limit was read")
        } catch { #expect(error.reason.hasPrefix("is longer than"), "\(error.reason)") }
        guard case .template = try ProfileSource(parsing: "{userinfo.login}@example.com") else {
            Issue.record("an ASCII template was not read as one")
            return
        }
        guard case .template = try ProfileSource(parsing: "é{userinfo.login}") else {
            Issue.record("a template beyond ASCII was not read as one")
            return
        }
    }

    @Test func anEmptyStringFallsThroughToTheNextSource() throws {
        let profile = UserProfile.map(mapping(name: ["userinfo.realname", "userinfo.username"]), idToken: nil, userInfo: try json(#"{"realname":"","username":"Ada"}"#))
        #expect(profile.name == "Ada")
    }

    @Test func theTokenAnswerIsARoot() throws {
        // Slack's OpenID-less v2 answer: the user under `authed_user`.
        let token = try json(#"{"authed_user":{"id":"U123"},"team":{"id":"T9","name":"Acme"}}"#)
        let profile = UserProfile.map(mapping(subject: ["token.authed_user.id"], name: ["token.team.name"]), idToken: nil, userInfo: nil, token: token)
        #expect(profile.subject == "U123" && profile.name == "Acme")
    }

    @Test func aTemplateIsPresentOnlyWhenEveryPlaceholderIsAndItsValuesAreEncoded() throws {
        let source = ["https://cdn.example/avatars/{userinfo.id}/{userinfo.avatar}.png"]
        let full = UserProfile.map(mapping(picture: source), idToken: nil, userInfo: try json(#"{"id":"80351110224678912","avatar":"ab/../c d"}"#))
        #expect(full.picture == "https://cdn.example/avatars/80351110224678912/ab%2F..%2Fc%20d.png")
        let missing = UserProfile.map(mapping(picture: source), idToken: nil, userInfo: try json(#"{"id":1,"avatar":null}"#))
        #expect(missing.picture == nil)
    }

    @Test func constantsAndNumericFlags() throws {
        let flagged = mapping(email: ["userinfo.email"], emailVerified: ["userinfo.verified"])
        let verified = UserProfile.map(flagged, idToken: nil, userInfo: try json(#"{"email":"a@example.com","verified":1}"#))
        #expect(verified.emailVerified == true)
        let unverified = UserProfile.map(flagged, idToken: nil, userInfo: try json(#"{"email":"a@example.com","verified":0}"#))
        #expect(unverified.emailVerified == false)
        let other = UserProfile.map(flagged, idToken: nil, userInfo: try json(#"{"email":"a@example.com","verified":2}"#))
        #expect(other.emailVerified == nil, "a number other than 0 and 1 says nothing")
        let never = UserProfile.map(mapping(email: ["userinfo.email"], emailVerified: ["=false"]), idToken: nil, userInfo: try json(#"{"email":"a@example.com"}"#))
        #expect(never.emailVerified == false)
    }

    /// The flag says whether the address was verified: without an address it is nil, whatever its source says. X's
    /// `email_verified: ['=true']` stands for its `confirmed_email`, which X sends only for a confirmed address; before,
    /// a user without one was mapped as verified.
    @Test func theVerifiedFlagNeedsAnAddress() throws {
        let x = mapping(email: ["userinfo.data.confirmed_email"], emailVerified: ["=true"])
        let confirmed = UserProfile.map(x, idToken: nil, userInfo: try json(#"{"data":{"id":"2244994945","confirmed_email":"a@example.com"}}"#))
        #expect(confirmed.email == "a@example.com" && confirmed.emailVerified == true)
        let without = UserProfile.map(x, idToken: nil, userInfo: try json(#"{"data":{"id":"2244994945"}}"#))
        #expect(without.email == nil && without.emailVerified == nil)
        let read = UserProfile.map(mapping(emailVerified: ["userinfo.email_verified"]), idToken: nil, userInfo: try json(#"{"email_verified":true}"#))
        #expect(read.emailVerified == nil, "a flag read from the answer, without an address beside it")
    }

    /// The reader trims white space as Foundation's `CharacterSet.whitespaces` does, for every scalar, without it.
    @Test func whiteSpaceIsFoundationsForEveryScalar() {
        var differing: [String] = []
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), WhiteSpace.contains(scalar) != CharacterSet.whitespaces.contains(scalar) else { continue }
            differing.append(String(value, radix: 16))
        }
        #expect(differing.isEmpty, "U+\(differing)")
        for text in [" userinfo.name\t", "\u{3000}userinfo.name\u{200B}", "\u{A0}\u{2000}x y\u{202F}", "\n x\n", "", " \t ", "é"] {
            #expect(WhiteSpace.trimmed(text) == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(WhiteSpace.isBlank(text) == text.trimmingCharacters(in: .whitespaces).isEmpty, "\(text.debugDescription)")
        }
    }

    @Test func joinedSourcesAndQuotedMembersAreSplitWhereTheyWere() throws {
        let name = ProfileSource.Path(root: "userinfo", steps: [.member("name")])
        #expect(try ProfileSource(parsing: "\u{3000}userinfo.name ") == .path(name))
        #expect(try ProfileSource(parsing: "userinfo.name + id_token.sub") == .joined([name, .init(root: "id_token", steps: [.member("sub")])]))
        #expect(throws: ProfileSourceProblem.self, "no ` + `: one path, with a step that is not a name") {
            try ProfileSource(parsing: "userinfo.name+ userinfo.name")
        }
        #expect(throws: ProfileSourceProblem.self) { try ProfileSource(parsing: "userinfo.name + + userinfo.name") }
        #expect(throws: ProfileSourceProblem.self) { try ProfileSource(parsing: "userinfo.name + ") }
        #expect(try ProfileSource(parsing: #"userinfo["a]b"].c"#) == .path(.init(root: "userinfo", steps: [.member("a]b"), .member("c")])))
        #expect(throws: ProfileSourceProblem.self, "the member ends at the first `\"]`") { try ProfileSource(parsing: #"userinfo["a"]"]"#) }
        #expect(try ProfileSource(parsing: #"userinfo["]"]"#) == .path(.init(root: "userinfo", steps: [.member("]")])))
        // The bytes-only reading of common sources and the general one agree.
        for text in [#"userinfo.data[0].id"#, #"id_token["https://x.example/a.b"][12].c"#, "token.a:b-c_d", "callback.user.name.firstName"] {
            #expect(ProfileSource.plainPath(text) != nil)
            #expect(try ProfileSource(parsing: text) == ProfileSource(parsing: " " + text), "\(text)")
        }
    }

    @Test(arguments: [
        "profile.sub", "userinfo", "userinfo.", "userinfo..x", "userinfo.a b", "userinfo[x]", "userinfo[1000]", #"userinfo[""]"#,
        "{userinfo.id", "userinfo.id}", "=maybe", #"userinfo["]"#, "userinfo.a + nowhere.b", String(repeating: "userinfo.a", count: 60),
    ])
    func aSourceThatCannotBeReadIsRefusedAtItsPosition(_ source: String) throws {
        let yaml = "profile:\n  picture: [\"\(source.replacingOccurrences(of: "\"", with: "\\\""))\"]\n"
        let descriptor = try TestDescriptor(extra: yaml).descriptor()
        let refusal = try #require(descriptor.refusals.first { $0.keyPath?.first == "profile" })
        #expect(refusal.keyPath == ["profile", "picture", "0"])
        #expect(refusal.message.contains("cannot be read"))
        #expect(throws: ProviderError.self) { try descriptor.resolve([:]) }
    }

    /// Secret names are refused by rule, not by spelling: Slack's classic `bot.bot_access_token` was let through by the
    /// list of exact names this replaced.
    @Test(arguments: [
        "bot_access_token", "botAccessToken", "Bot-Access-Token", "BOT_ACCESS_TOKEN", "subject_token", "webhookSecret", "app-secret",
        "user_password", "client_assertion", "jwtAssertion", "refresh_token_expires_in", "accessTokenV2", "idToken", "Client-Secret",
        "access_tokens", "code", "device_code",
    ])
    func aMemberNamedLikeATokenOrASecretIsRefused(_ name: String) throws {
        #expect(ProfileSource.Path.namesSecret(name), "\(name)")
        let yaml = "profile:\n  name: [\"token.bot.\(name)\"]\n"
        let descriptor = try TestDescriptor(extra: yaml).descriptor()
        let refusal = try #require(descriptor.refusals.first { $0.keyPath?.first == "profile" }, "\(name)")
        #expect(refusal.message.contains("`\(name)`"))
        #expect(throws: ProviderError.self) { try descriptor.resolve([:]) }
    }

    @Test func slacksBotTokenNeverReachesAUserinfoTemplate() throws {
        let descriptor = try TestDescriptor(extra: "userinfo:\n  headers:\n    X-A: '{token.bot.bot_access_token}'\n").descriptor()
        #expect(descriptor.refusals.contains { $0.keyPath?.joined(separator: ".") == "userinfo.headers.X-A" })
        #expect(throws: ProviderError.self) { try descriptor.resolve([:]) }
    }

    @Test(arguments: ["token_type", "tokenType", "expires_in", "team_id", "user_id", "open_id", "scope", "email", "authed_user", "bot_user_id"])
    func theHarmlessNamesAreRead(_ name: String) throws {
        #expect(!ProfileSource.Path.namesSecret(name), "\(name)")
        let descriptor = try TestDescriptor(extra: "profile:\n  name: [\"token.\(name)\"]\n").descriptor()
        #expect(!descriptor.refusals.contains { $0.keyPath?.first == "profile" }, "\(name)")
    }

    @Test func everyBundledDescriptorStillResolves() throws {
        let registry = try ProviderRegistry.load(includeUserDirectory: false)
        #expect(registry.skipped.isEmpty)
        for id in registry.ids {
            let descriptor = try #require(registry.entry(named: id)).descriptor
            #expect(!descriptor.refusals.contains { ["profile", "userinfo"].contains($0.keyPath?.first ?? "") }, "\(id)")
        }
    }
}
