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
        let verified = UserProfile.map(mapping(emailVerified: ["userinfo.verified"]), idToken: nil, userInfo: try json(#"{"verified":1}"#))
        #expect(verified.emailVerified == true)
        let unverified = UserProfile.map(mapping(emailVerified: ["userinfo.verified"]), idToken: nil, userInfo: try json(#"{"verified":0}"#))
        #expect(unverified.emailVerified == false)
        let other = UserProfile.map(mapping(emailVerified: ["userinfo.verified"]), idToken: nil, userInfo: try json(#"{"verified":2}"#))
        #expect(other.emailVerified == nil, "a number other than 0 and 1 says nothing")
        let never = UserProfile.map(mapping(emailVerified: ["=false"]), idToken: nil, userInfo: nil)
        #expect(never.emailVerified == false)
    }

    @Test(arguments: [
        "profile.sub", "userinfo", "userinfo.", "userinfo..x", "userinfo.a b", "userinfo[x]", "userinfo[1000]", #"userinfo[""]"#,
        "{userinfo.id", "userinfo.id}", "=maybe", "userinfo.a + nowhere.b", String(repeating: "userinfo.a", count: 60),
    ])
    func aSourceThatCannotBeReadIsRefusedAtItsPosition(_ source: String) throws {
        let yaml = "profile:\n  picture: [\"\(source.replacingOccurrences(of: "\"", with: "\\\""))\"]\n"
        let descriptor = try TestDescriptor(extra: yaml).descriptor()
        let refusal = try #require(descriptor.refusals.first { $0.keyPath?.first == "profile" })
        #expect(refusal.keyPath == ["profile", "picture", "0"])
        #expect(refusal.message.contains("cannot be read"))
        #expect(throws: ProviderError.self) { try descriptor.resolve([:]) }
    }
}
