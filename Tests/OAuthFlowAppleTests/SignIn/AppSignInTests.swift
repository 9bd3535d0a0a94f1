import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

@testable import OAuthFlowApple

/// An app's sign-in (``AppSignIn``), everything but the sheet: the redirect from the descriptor, the provider's page
/// played by ``ScriptedUser`` against a `SimulatedProvider`, the callback's checks, the code exchange and the store.
@Suite struct AppSignInTests {
    static let bundle = "com.example.app"
    static let redirect = URL(string: "com.example.app:/oauth2redirect")!

    /// A provider whose descriptor names `redirect` (YAML under `redirect:`), with the app's client registered.
    static func simulated(
        redirect: String = "  private_use_scheme: com.example.app\n", options: (inout SimulatedProvider.DescriptorOptions) -> Void = { _ in },
        registered: [URL] = [AppSignInTests.redirect]
    ) throws -> (SimulatedProvider, Provider) {
        let simulated = try SimulatedProvider(clients: [.public(id: "ios-app", redirectURIs: registered)])
        var descriptor = SimulatedProvider.DescriptorOptions()
        descriptor.extra = "redirect:\n" + redirect
        options(&descriptor)
        return (simulated, try simulated.provider(descriptor))
    }

    static func signIn(_ simulated: SimulatedProvider, _ user: ScriptedUser, store: any TokenStore = InMemoryTokenStore()) -> AppSignIn {
        AppSignIn(store: store, authenticator: user, environment: simulated.environment, bundleIdentifier: bundle)
    }

    @Test func aSignInStoresTheSessionWithTheDescriptorsPrivateUseRedirect() async throws {
        let (simulated, provider) = try Self.simulated()
        let user = ScriptedUser(simulated, moves: [.approve(subject: "ada")])
        let store = InMemoryTokenStore()
        let result = try await Self.signIn(simulated, user, store: store).signIn(to: provider, settings: ClientSettings(clientID: "ios-app"))
        #expect(result.idToken?.subject == "ada")
        #expect(result.session.redirectURI == Self.redirect)
        #expect(await store.load(SessionKey(providerID: provider.id))?.tokens.refreshToken != nil)
        let sheet = try #require(user.sheets.first)
        #expect(sheet.callback == .customScheme("com.example.app") && sheet.redirectURI == Self.redirect && !sheet.prefersEphemeral)
        let query = URLComponents(url: sheet.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains { $0.name == "redirect_uri" && $0.value == Self.redirect.absoluteString })
        #expect(query.contains { $0.name == "code_challenge_method" && $0.value == "S256" } && query.contains { $0.name == "state" })
    }

    /// The user's cancel is `FlowError` `cancelled`: nothing is exchanged and nothing stored.
    @Test func theUsersCancelIsTheCancelledCode() async throws {
        let (simulated, provider) = try Self.simulated()
        let store = InMemoryTokenStore()
        let error = try await #require(throws: FlowError.self) {
            try await Self.signIn(simulated, ScriptedUser(simulated, moves: [.cancel]), store: store)
                .signIn(to: provider, settings: ClientSettings(clientID: "ios-app"))
        }
        #expect(error.code == .cancelled, "\(error)")
        #expect(await simulated.requestCount(.token) == 0)
        #expect(await store.load(SessionKey(providerID: provider.id)) == nil)
    }

    /// A user who declines is the provider's `access_denied`, not a cancel.
    @Test func aDeclinedConsentIsTheProvidersAnswer() async throws {
        let (simulated, provider) = try Self.simulated()
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await Self.signIn(simulated, ScriptedUser(simulated, moves: [.deny])).signIn(to: provider, settings: ClientSettings(clientID: "ios-app"))
        }
        #expect(error.error == "access_denied")
    }

    /// RFC 9126 §2.2: a pushed request that expired between the push and the sheet is pushed again, so the sheet does
    /// not open on the provider's error page.
    @Test func aPushedRequestThatExpiredBeforeTheSheetOpenedIsPushedAgain() async throws {
        let (simulated, provider) = try Self.simulated(options: { $0.pushesAuthorizationRequests = true })
        let user = ScriptedUser(simulated)
        let seen = Locked<[AppSignIn.Event]>([])
        let result = try await Self.signIn(simulated, user).signIn(to: provider, settings: ClientSettings(clientID: "ios-app")) { event in
            seen.withLock { $0.append(event) }
            // The app waited (the main actor busy, the user slow to tap): the request's 60 seconds pass.
            if case .started = event { simulated.clock.advance(120) }
        }
        #expect(result.idToken != nil)
        #expect(await simulated.requestCount(.pushedAuthorization) == 2)
        #expect(seen.current.contains { if case .pushedRequestRenewed = $0 { true } else { false } })
        #expect(user.sheets.count == 1)
    }

    /// One that is still fresh is opened as it is.
    @Test func aFreshPushedRequestIsOpenedAsItIs() async throws {
        let (simulated, provider) = try Self.simulated(options: { $0.pushesAuthorizationRequests = true })
        _ = try await Self.signIn(simulated, ScriptedUser(simulated)).signIn(to: provider, settings: ClientSettings(clientID: "ios-app"))
        #expect(await simulated.requestCount(.pushedAuthorization) == 1)
    }

    /// A provider that answers with a POST, or takes web redirects only, is refused before the sheet opens.
    @Test func formPostAndWebOnlyProvidersAreRefusedBeforeTheSheet() async throws {
        let (simulated, posting) = try Self.simulated(options: { $0.responseMode = .formPost })
        let user = ScriptedUser(simulated)
        let formPost = try await #require(throws: FlowError.self) {
            try await Self.signIn(simulated, user).signIn(to: posting, settings: ClientSettings(clientID: "ios-app"))
        }
        #expect(formPost.code == .invalidRedirectURI && formPost.message.contains("form_post"), "\(formPost)")
        let (_, webOnly) = try Self.simulated(redirect: "  web_only: true\n  private_use_scheme: com.example.app\n")
        let refused = try await #require(throws: FlowError.self) {
            try await Self.signIn(simulated, user).signIn(to: webOnly, settings: ClientSettings(clientID: "ios-app"))
        }
        #expect(refused.message.contains("web_only"), "\(refused)")
        #expect(user.sheets.isEmpty)
        #expect(await simulated.requestCount(.token) == 0)
    }

    /// The host's registered URI is checked before the sheet opens: another scheme than the descriptor's or the app's.
    @Test func aRegisteredRedirectOfAnotherSchemeIsRefusedBeforeTheSheet() async throws {
        let (simulated, provider) = try Self.simulated()
        let user = ScriptedUser(simulated)
        let refused = try await #require(throws: FlowError.self) {
            try await Self.signIn(simulated, user).signIn(
                to: provider, settings: ClientSettings(clientID: "ios-app"), redirect: .registered(URL(string: "myapp://callback")!))
        }
        #expect(refused.code == .invalidRedirectURI && refused.message.contains("`com.example.app`"), "\(refused)")
        #expect(user.sheets.isEmpty)
    }

    /// A claimed https link: the sheet waits for its host and path (`Callback.https(host:path:)`).
    @Test func aClaimedHTTPSRedirectWaitsForItsHostAndPath() async throws {
        let link = URL(string: "https://app.example.com/ios/com.example.app/callback")!
        let (simulated, provider) = try Self.simulated(
            redirect: "  claimed_https: 'https://app.example.com/ios/{bundle_id}/callback'\n", registered: [link])
        let user = ScriptedUser(simulated)
        let result = try await Self.signIn(simulated, user).signIn(
            to: provider, settings: ClientSettings(clientID: "ios-app"), redirect: .claimedHTTPS, prefersEphemeral: true)
        #expect(result.session.redirectURI == link)
        let sheet = try #require(user.sheets.first)
        #expect(sheet.callback == .https(host: "app.example.com", path: "/ios/com.example.app/callback") && sheet.prefersEphemeral)
    }

    /// A callback for another redirect URI than the request's is refused, and nothing is exchanged.
    @Test func aCallbackForAnotherRedirectIsRefused() async throws {
        struct Elsewhere: WebAuthenticator {
            let simulated: SimulatedProvider
            func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL {
                let sent = try await simulated.approve(url)
                var components = URLComponents(url: sent, resolvingAgainstBaseURL: false)!
                components.path = "/elsewhere"
                return components.url!
            }
        }
        let (simulated, provider) = try Self.simulated()
        let signIn = AppSignIn(store: InMemoryTokenStore(), authenticator: Elsewhere(simulated: simulated), environment: simulated.environment)
        let error = try await #require(throws: FlowError.self) { try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "ios-app")) }
        #expect(error.code == .invalidCallback, "\(error)")
        #expect(await simulated.requestCount(.token) == 0)
    }

    /// The front door signs in by name, with the descriptor the host's directory holds.
    @Test func theFrontDoorSignsInByName() async throws {
        let (simulated, _) = try Self.simulated()
        var options = SimulatedProvider.DescriptorOptions()
        options.id = "acme"
        options.extra = "redirect:\n  private_use_scheme: '{bundle_id}'\n"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-sign-in-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try simulated.descriptorText(options).write(to: directory.appendingPathComponent("acme.yaml"), atomically: true, encoding: .utf8)
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [directory], includeBundledProviders: false, clients: ["acme": ClientSettings(clientID: "ios-app")],
                environment: simulated.environment))
        let result = try await oauth.signIn(to: "acme", authenticator: ScriptedUser(simulated), bundleIdentifier: Self.bundle)
        #expect(result.session.key == SessionKey(providerID: "acme"))
        #expect(try await oauth.accessToken(for: "acme") == result.tokens.accessToken)
    }
}

/// The callback the system waits for, and what its completion handler's answer means: decided in Linux-compiled code.
@Suite struct WebAuthenticationCallbackTests {
    @Test func aPrivateUseRedirectWaitsForItsScheme() throws {
        #expect(try WebAuthenticationCallback(redirectURI: URL(string: "com.example.app:/oauth2redirect")!, matchesHTTPS: false) == .customScheme("com.example.app"))
        #expect(
            try WebAuthenticationCallback(redirectURI: URL(string: "com.Example.App://example.us.auth0.com/ios/x/callback")!, matchesHTTPS: true)
                == .customScheme("com.Example.App"))
    }

    @Test func aClaimedRedirectWaitsForHostAndPathWhereTheSystemCan() throws {
        let link = URL(string: "https://example.us.auth0.com/ios/com.example.MyApp/callback")!
        #expect(try WebAuthenticationCallback(redirectURI: link, matchesHTTPS: true) == .https(host: "example.us.auth0.com", path: "/ios/com.example.MyApp/callback"))
        // Before iOS 17.4 and macOS 14.4 the session can wait for a scheme only: said before it opens.
        let old = try #require(throws: FlowError.self) { try WebAuthenticationCallback(redirectURI: link, matchesHTTPS: false) }
        #expect(old.code == .invalidRedirectURI && old.message.contains("iOS 17.4"), "\(old)")
    }

    @Test func theCompletionHandlersAnswers() throws {
        let domain = ScriptedUser.sessionErrorDomain
        let url = URL(string: "com.example.app:/oauth2redirect?code=c&state=s")!
        #expect(try WebAuthenticationCallback.outcome(url: url, error: nil, domain: domain, cancelled: 1).get() == url)
        let cancelled = NSError(domain: domain, code: 1)
        let result = WebAuthenticationCallback.outcome(url: nil, error: cancelled, domain: domain, cancelled: 1)
        #expect(((try? result.get()) == nil) && Self.code(result) == .cancelled)
        // No presentation context, or one the system cannot use: a setup to fix, not a cancel.
        for code in [2, 3] {
            #expect(Self.code(WebAuthenticationCallback.outcome(url: nil, error: NSError(domain: domain, code: code), domain: domain, cancelled: 1)) == .invalidRedirectURI)
        }
        struct Other: Error {}
        #expect(Self.code(WebAuthenticationCallback.outcome(url: nil, error: Other(), domain: domain, cancelled: 1)) == nil)
        #expect(Self.code(WebAuthenticationCallback.outcome(url: nil, error: nil, domain: domain, cancelled: 1)) == .invalidRedirectURI)
    }

    static func code(_ result: Result<URL, any Error>) -> FlowError.Code? {
        if case .failure(let error as FlowError) = result { return error.code }
        return nil
    }
}
