import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Each bundled descriptor's `profile` mapping against responses shaped as its provider answers.
@Suite struct ProfileMappingTests {
    /// The bundled provider `id`, resolved with its variables' examples.
    func descriptor(_ id: String) throws -> Provider {
        let descriptor = try ProviderRegistry.load(includeBundled: true).descriptor(named: id)
        return try descriptor.resolve(descriptor.variables.compactMapValues { $0.default == nil ? $0.example : nil })
    }

    func json(_ text: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
    }

    @Test func google() throws {
        let idToken = try json(#"{"iss":"https://accounts.google.com","sub":"110169484474386276334","email":"ada@gmail.com","email_verified":true,"name":"Ada Lovelace","picture":"https://lh3.googleusercontent.com/a/ada"}"#)
        let profile = UserProfile.map(try descriptor("google").profile, idToken: idToken, userInfo: nil)
        #expect(profile == UserProfile(subject: "110169484474386276334", name: "Ada Lovelace", email: "ada@gmail.com", emailVerified: true,
                                       picture: "https://lh3.googleusercontent.com/a/ada"))
    }

    @Test func githubNeedsItsUserAndEmailsCalls() throws {
        let user = try json(#"{"login":"ada","id":583231,"avatar_url":"https://avatars.githubusercontent.com/u/583231?v=4","name":null,"email":null}"#)
        let emails = try JSONDecoder().decode(JSONValue.self, from: Data(#"""
            [{"email":"old@example.com","primary":false,"verified":true,"visibility":null},
             {"email":"ada@example.com","primary":true,"verified":true,"visibility":"private"}]
            """#.utf8))
        let mapping = try descriptor("github").profile
        let picked = UserProfile.pick(emails, where: mapping.extraCallPickWhere)
        let profile = UserProfile.map(mapping, idToken: nil, userInfo: user, extra: picked)
        #expect(profile == UserProfile(subject: "583231", name: "ada", email: "ada@example.com", emailVerified: true,
                                       picture: "https://avatars.githubusercontent.com/u/583231?v=4"))
        // Without the emails call, the public address (if any) and no verified flag.
        let withoutEmails = UserProfile.map(mapping, idToken: nil, userInfo: try json(#"{"id":1,"login":"x","email":"x@example.com"}"#))
        #expect(withoutEmails.email == "x@example.com" && withoutEmails.emailVerified == nil)
    }

    @Test func microsoftUsesTheObjectID() throws {
        let idToken = try json(#"{"sub":"AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ","oid":"00000000-0000-0000-66f3-3332eca7ea81","tid":"9122040d-6c67-4c5b-b112-36a304b66dad","name":"Ada Lovelace","preferred_username":"ada@contoso.onmicrosoft.com"}"#)
        let profile = UserProfile.map(try descriptor("microsoft").profile, idToken: idToken, userInfo: nil)
        #expect(profile == UserProfile(subject: "00000000-0000-0000-66f3-3332eca7ea81", name: "Ada Lovelace", email: nil, emailVerified: nil))
    }

    @Test func auth0OktaKeycloakGitLabAndCloudentity() throws {
        let auth0 = try json(#"{"sub":"auth0|64f1","nickname":"ada","name":"ada@example.com","picture":"https://s.gravatar.com/avatar/x.png","email":"ada@example.com","email_verified":"true"}"#)
        #expect(UserProfile.map(try descriptor("auth0").profile, idToken: auth0, userInfo: nil)
            == UserProfile(subject: "auth0|64f1", name: "ada@example.com", email: "ada@example.com", emailVerified: true, picture: "https://s.gravatar.com/avatar/x.png"))

        let okta = try json(#"{"sub":"00uid4BxXw6I6TV4m0g3","preferred_username":"ada@example.com","email":"ada@example.com","email_verified":true}"#)
        #expect(UserProfile.map(try descriptor("okta").profile, idToken: okta, userInfo: try json(#"{"sub":"00uid4BxXw6I6TV4m0g3","picture":"https://example.com/p.png"}"#))
            == UserProfile(subject: "00uid4BxXw6I6TV4m0g3", name: "ada@example.com", email: "ada@example.com", emailVerified: true, picture: "https://example.com/p.png"))

        let keycloak = try json(#"{"sub":"f:1b2c","preferred_username":"ada","email":"ada@example.com","email_verified":false}"#)
        #expect(UserProfile.map(try descriptor("keycloak").profile, idToken: keycloak, userInfo: nil)
            == UserProfile(subject: "f:1b2c", name: "ada", email: "ada@example.com", emailVerified: false))

        let gitlab = try json(#"{"sub":"4242","nickname":"ada","name":"Ada Lovelace","email":"ada@example.com","email_verified":true,"picture":"https://gitlab.com/uploads/-/system/user/avatar/4242/a.png"}"#)
        #expect(UserProfile.map(try descriptor("gitlab").profile, idToken: gitlab, userInfo: nil)
            == UserProfile(subject: "4242", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true, picture: "https://gitlab.com/uploads/-/system/user/avatar/4242/a.png"))

        let cloudentity = try json(#"{"sub":"c3b1","email":"ada@example.com","email_verified":true}"#)
        #expect(UserProfile.map(try descriptor("cloudentity").profile, idToken: cloudentity, userInfo: try json(#"{"sub":"c3b1","preferred_username":"ada"}"#))
            == UserProfile(subject: "c3b1", name: "ada", email: "ada@example.com", emailVerified: true))
    }

    /// Each bundled file states its `profile` section, even one that says what the defaults say (an OpenID
    /// provider's standard claims): the mapping is a claim about the provider, checked against its pages.
    @Test func everyBundledDescriptorDeclaresItsMapping() throws {
        let directory = try #require(BundledProviders.directory)
        for entry in try ProviderRegistry.load(includeBundled: true).all {
            let text = try String(contentsOf: directory.appendingPathComponent("\(entry.descriptor.id).yaml"), encoding: .utf8)
            #expect(text.hasPrefix("profile:") || text.contains("\nprofile:"), "\(entry.descriptor.id) declares no profile mapping")
        }
    }

    @Test func theExtraCallGoesOutWithTheTokenAndIsNarrowed() async throws {
        let provider = try descriptor("github")
        let transport = ScriptedTransport { request, _ in
            #expect(request.headers["Authorization"] == "Bearer gho_abc")
            #expect(request.headers["User-Agent"] == "OAuthFlow", "the userinfo headers go with it")
            switch request.url.absoluteString {
            case "https://api.github.com/user":
                return TransportResponse(status: 200, body: Data(#"{"id":7,"login":"ada","avatar_url":"https://a/7"}"#.utf8))
            case "https://api.github.com/user/emails":
                return TransportResponse(status: 200, body: Data(#"[{"email":"b@x","primary":false,"verified":false},{"email":"a@x","primary":true,"verified":true}]"#.utf8))
            default:
                return TransportResponse(status: 404)
            }
        }
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
        let tokens = TokenSet(accessToken: Secret("gho_abc"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: nil,
                              scopes: ["read:user", "user:email"], issuedAt: Date())
        let profile = try await client.profile(tokens, idToken: nil)
        #expect(profile == UserProfile(subject: "7", name: "ada", email: "a@x", emailVerified: true, picture: "https://a/7"))
    }

    @Test func hostileProfileAnswersLeaveFieldsEmptyOrFailClearly() async throws {
        let provider = try descriptor("github")
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let answers: [String] = [deep, "not json", #"{"id":{"nested":true},"login":["a"],"avatar_url":12.5}"#, "[]", #"{"id":"\u001b[31mred"}"#]
        for answer in answers {
            let transport = ScriptedTransport { request, _ in
                request.url.path.hasSuffix("/emails") ? TransportResponse(status: 200, body: Data(deep.utf8)) : TransportResponse(status: 200, body: Data(answer.utf8))
            }
            let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "c", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
            let tokens = TokenSet(accessToken: Secret("t"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date())
            do {
                let profile = try await client.profile(tokens, idToken: nil)
                #expect(profile.email == nil && profile.emailVerified == nil, "\(answer.prefix(30)): \(profile)")
            } catch let error as FlowError {
                #expect(error.code == .invalidUserInfo, "\(error)")
            }
        }
    }
}
