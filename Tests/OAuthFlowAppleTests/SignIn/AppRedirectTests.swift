import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// An app's redirect URI from the descriptor (`redirect.private_use_scheme`, `private_use_uri`, `claimed_https`;
/// RFC 8252 §7.1, §7.2): built, and the host's own checked against it, by `Provider.appRedirectURI`.
@Suite struct AppRedirectTests {
    static func bundled(_ id: String, _ variables: [String: String] = [:]) throws -> Provider {
        try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false).descriptor(named: id).resolve(variables)
    }

    static func provider(_ redirect: String, variables: String = "") throws -> Provider {
        try TestDescriptor(protocol: .oidc, extra: variables + "redirect:\n" + redirect).provider()
    }

    // MARK: - Built from the descriptor

    /// Google's iOS clients: the scheme is the client id reversed, one slash after it (the Kodeco seed's client).
    @Test func googlesIOSRedirectIsTheReversedClientID() throws {
        let google = try Self.bundled("google-ios")
        let uri = try google.appRedirectURI(clientID: "1234-abc.apps.googleusercontent.com", bundleIdentifier: "com.alessandrodn.MyGoogleInfo")
        #expect(uri.absoluteString == "com.googleusercontent.apps.1234-abc:/oauth2redirect")
    }

    /// Auth0's documented forms: `{bundle}://{domain}/ios/{bundle}/callback`, and the https link for iOS 17.4; `macos`
    /// for a Mac app.
    @Test func auth0sRedirectsAreItsDocumentedForms() throws {
        let auth0 = try Self.bundled("auth0", ["domain": "example.us.auth0.com"])
        let custom = try auth0.appRedirectURI(clientID: "AbCdEf", bundleIdentifier: "com.example.MyApp")
        #expect(custom.absoluteString == "com.example.MyApp://example.us.auth0.com/ios/com.example.MyApp/callback")
        let link = try auth0.appRedirectURI(clientID: "AbCdEf", bundleIdentifier: "com.example.MyApp", claimedHTTPS: true)
        #expect(link.absoluteString == "https://example.us.auth0.com/ios/com.example.MyApp/callback")
        let mac = try Self.bundled("auth0", ["domain": "example.us.auth0.com", "app_platform": "macos"])
        #expect(try mac.appRedirectURI(clientID: "AbCdEf", bundleIdentifier: "com.example.MyApp").path == "/macos/com.example.MyApp/callback")
    }

    /// Cloudentity's sample: its own scheme and the app's reverse-DNS name, `oauth://com.example.simple-pkce`.
    @Test func cloudentitysRedirectIsTheSamplesForm() throws {
        let cloudentity = try Self.bundled("cloudentity", ["tenant": "acme", "region": "us", "workspace": "demo", "app_scheme": "oauth"])
        let uri = try cloudentity.appRedirectURI(clientID: "c0ffee", bundleIdentifier: "com.example.simple-pkce")
        #expect(uri.absoluteString == "oauth://com.example.simple-pkce")
    }

    /// A value the template needs and does not have is named, and nothing is built.
    @Test func aMissingValueIsNamed() throws {
        let auth0 = try Self.bundled("auth0", ["domain": "example.us.auth0.com"])
        let noBundle = try #require(throws: FlowError.self) { try auth0.appRedirectURI(clientID: "AbCdEf", bundleIdentifier: nil) }
        #expect(noBundle.code == .invalidRedirectURI && noBundle.message.contains("{bundle_id}"), "\(noBundle)")
        let cloudentity = try Self.bundled("cloudentity", ["tenant": "acme", "region": "us", "workspace": "demo"])
        let noScheme = try #require(throws: FlowError.self) {
            try cloudentity.appRedirectURI(clientID: "c0ffee", bundleIdentifier: "com.example.simple-pkce")
        }
        #expect(noScheme.message.contains("`{app_scheme}`"), "\(noScheme)")
        // A client id that would change the URI's structure is not put in it.
        let google = try Self.bundled("google-ios")
        let odd = try #require(throws: FlowError.self) { try google.appRedirectURI(clientID: "a/b.apps.googleusercontent.com", bundleIdentifier: nil) }
        #expect(odd.code == .invalidRedirectURI)
    }

    /// A descriptor without an app redirect builds none: the host gives the URI it registered.
    @Test func noAppRedirectWithoutTheDescriptorsForm() throws {
        let google = try Self.bundled("google")
        let refused = try #require(throws: FlowError.self) { try google.appRedirectURI(clientID: "x", bundleIdentifier: "com.example.app") }
        #expect(refused.message.contains("`redirect.private_use_scheme`"), "\(refused)")
        let claimed = try #require(throws: FlowError.self) {
            try Self.bundled("google-ios").appRedirectURI(clientID: "x", bundleIdentifier: nil, claimedHTTPS: true)
        }
        #expect(claimed.message.contains("`redirect.claimed_https`"), "\(claimed)")
    }

    // MARK: - The host's redirect, checked

    /// The registered URI wins, once checked: the descriptor's scheme, or the app's bundle identifier (RFC 8252 §7.1).
    @Test func aRegisteredURIWithTheDescriptorsSchemeOrTheBundleIdentifierIsTaken() throws {
        let google = try Self.bundled("google-ios")
        let clientID = "1234-abc.apps.googleusercontent.com"
        for text in ["com.googleusercontent.apps.1234-abc:/oauth2redirect/google", "com.alessandrodn.MyGoogleInfo:/oauth2redirect"] {
            let given = try #require(URL(string: text))
            #expect(try google.appRedirectURI(clientID: clientID, bundleIdentifier: "com.alessandrodn.MyGoogleInfo", requested: given) == given)
        }
    }

    /// Another scheme is refused before anything opens, with the schemes that would do.
    @Test func aRegisteredURIWithAnotherSchemeIsRefused() throws {
        let google = try Self.bundled("google-ios")
        let given = try #require(URL(string: "oauth://com.example.simple-pkce"))
        let refused = try #require(throws: FlowError.self) {
            try google.appRedirectURI(clientID: "1234-abc.apps.googleusercontent.com", bundleIdentifier: "com.example.app", requested: given)
        }
        #expect(refused.code == .invalidRedirectURI)
        #expect(refused.message.contains("`com.googleusercontent.apps.1234-abc`") && refused.message.contains("`com.example.app`"), "\(refused)")
    }

    /// What no app's redirect can be: plain http, a fragment, a scheme a browser handles itself, another https link
    /// than the one the descriptor claims.
    @Test(arguments: [
        "http://127.0.0.1:8765/callback", "com.example.app:/oauth2redirect#x", "javascript:alert(1)", "data:text/html,hi",
        "https://evil.example/ios/com.example.MyApp/callback", "https://example.us.auth0.com/ios/com.other.App/callback",
    ])
    func whatNoAppRedirectCanBeIsRefused(_ text: String) throws {
        let auth0 = try Self.bundled("auth0", ["domain": "example.us.auth0.com"])
        let given = try #require(URL(string: text))
        let refused = try #require(throws: FlowError.self) {
            try auth0.appRedirectURI(clientID: "AbCdEf", bundleIdentifier: "com.example.MyApp", requested: given)
        }
        #expect(refused.code == .invalidRedirectURI, "\(text): \(refused)")
    }

    /// A scheme the descriptor leaves to a variable without a value cannot be checked: any private-use scheme is taken.
    @Test func aSchemeLeftToAnUnsetVariableTakesTheRegisteredURI() throws {
        let cloudentity = try Self.bundled("cloudentity", ["tenant": "acme", "region": "us", "workspace": "demo"])
        let given = try #require(URL(string: "com.example.simple-pkce:/oauth2redirect"))
        #expect(try cloudentity.appRedirectURI(clientID: "c0ffee", bundleIdentifier: nil, requested: given) == given)
    }

    /// A provider no app can sign in to is refused with a sentence: web redirects only, or a POST for an answer.
    @Test func webOnlyAndFormPostProvidersAreRefused() throws {
        let apple = try Self.bundled("apple", ["team_id": "ABCDE12345"])
        let webOnly = try #require(throws: FlowError.self) {
            try apple.appRedirectURI(clientID: "com.example.web", bundleIdentifier: "com.example.app", requested: URL(string: "com.example.app:/cb"))
        }
        #expect(webOnly.message.contains("`redirect.web_only`"), "\(webOnly)")
        let posting = try TestDescriptor(
            protocol: .oidc, extra: "authorization:\n  response_mode: form_post\nredirect:\n  private_use_scheme: com.example.app\n"
        ).provider()
        let formPost = try #require(throws: FlowError.self) { try posting.appRedirectURI(clientID: "x", bundleIdentifier: nil) }
        #expect(formPost.message.contains("form_post"), "\(formPost)")
    }

    // MARK: - The descriptor, checked at resolution

    /// What the resolver refuses in the redirect section, each at its setting (lint's `private_use_scheme` and
    /// `undeclared_variable` report these where they are written).
    @Test(arguments: [
        ("  private_use_scheme: 'com.example.app:/callback'\n", "private_use_scheme", "not a URI scheme"),
        ("  private_use_scheme: https\n", "private_use_scheme", "no app owns"),
        ("  private_use_scheme: com.example.app\n  private_use_uri: 'org.example.app:/cb'\n", "private_use_uri", "does not begin with"),
        ("  private_use_uri: 'org.example.app:/cb'\n", "private_use_uri", "needs `redirect.private_use_scheme`"),
        ("  private_use_scheme: com.example.app\n  private_use_uri: 'com.example.app:/cb?x=1'\n", "private_use_uri", "has a query"),
        ("  claimed_https: 'http://app.example.com/cb'\n", "claimed_https", "not an https URL"),
        ("  claimed_https: 'https://app.example.com/cb#top'\n", "claimed_https", "fragment"),
        // A combining mark after the `#` or `?` (Foundation's substring search, used before, passed these).
        ("  claimed_https: 'https://app.example.com/cb#\u{301}top'\n", "claimed_https", "fragment"),
        ("  private_use_scheme: com.example.app\n  private_use_uri: 'com.example.app:/cb?\u{301}x=1'\n", "private_use_uri", "has a query"),
        ("  private_use_scheme: '{app_id}'\n", "private_use_scheme", "neither a variable"),
    ])
    func theResolverRefusesWhatNoRedirectCanBe(_ redirect: String, _ setting: String, _ reason: String) throws {
        let descriptor = try TestDescriptor(protocol: .oidc, extra: "redirect:\n" + redirect).descriptor()
        let refusal = try #require(descriptor.refusals.first { $0.keyPath == ["redirect", setting] }, "\(descriptor.refusals)")
        #expect(refusal.message.contains(reason), "\(refusal.message)")
        #expect(throws: ProviderError.self) { try descriptor.resolve() }
    }

    /// The placeholders an app fills and declared variables pass; the variables fill in at resolution.
    @Test func declaredVariablesFillInAndTheAppsPlaceholdersWait() throws {
        let provider = try Self.provider(
            "  private_use_scheme: '{reversed_client_id}'\n  claimed_https: 'https://{host}/ios/{bundle_id}/callback'\n",
            variables: "variables:\n  host:\n    description: Host\n    default: app.example.com\n")
        #expect(provider.policy.appRedirect.claimedHTTPS == "https://app.example.com/ios/{bundle_id}/callback")
        #expect(provider.policy.appRedirect.privateUseURI == "{reversed_client_id}:/oauth2redirect")
    }

    /// The catalog says which providers take an app client.
    @Test func theCatalogSaysWhichProvidersTakeAnAppClient() throws {
        let registry = try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false)
        #expect(try registry.descriptor(named: "google-ios").catalogEntry.appClient == "private-use")
        #expect(try registry.descriptor(named: "auth0").catalogEntry.appClient == "private-use, claimed https")
        #expect(try registry.descriptor(named: "cloudentity").catalogEntry.appClient == "private-use")
        #expect(try registry.descriptor(named: "google").catalogEntry.appClient == "no")
        #expect(try registry.descriptor(named: "apple").catalogEntry.appClient == "no")
    }

    /// The user's cancel has a code of its own, which a host switches on.
    @Test func cancelledIsACodeOfItsOwn() {
        let error = FlowError.cancelled("closed")
        #expect(error.code == .cancelled && error.code.description == "cancelled")
        #expect(error.code != .invalidRedirectURI)
    }
}
