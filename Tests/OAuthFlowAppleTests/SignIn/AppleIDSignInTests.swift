import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

/// Native Sign in with Apple (issue 64 item 1): the sheet's logic on Linux, with a scripted sheet that signs identity
/// tokens as Apple documents them, and the app's server redeeming the code against a stand-in of Apple's token,
/// keys and revocation endpoints; then the user deletes their account.
@Suite struct AppleIDSignInTests {
    static let bundleID = "com.example.notes"
    static let user = "001234.0f9c8b7a6d5e4c3b2a1f.1234"

    /// Apple's keys, token and revocation endpoints: identity tokens and ID tokens signed RS256; a code redeemed once,
    /// only with a client secret naming the team, the app and Apple, and no redirect URI or PKCE verifier.
    final class StandIn: HTTPTransport, @unchecked Sendable {
        let appleKey: JWSPrivateKey
        let clientKey: (key: JWSPrivateKey, pem: String)
        private let lock = NSLock()
        private var codes: [String: String] = [:]
        private(set) var tokenRequests: [[String: String]] = []
        private(set) var revoked: [String] = []
        /// Answer codes without an ID token.
        var withoutIDToken = false

        init() throws {
            appleKey = try JWSPrivateKey.generate(.rsa).key
            clientKey = try JWSPrivateKey.generate(.ec)
        }

        /// An identity token as Apple signs it.
        func identityToken(sub: String = AppleIDSignInTests.user, aud: String = AppleIDSignInTests.bundleID, nonce: String?, key: JWSPrivateKey? = nil)
            async throws -> Secret
        {
            let now = Date().timeIntervalSince1970.rounded(.down)
            var claims: [String: JSONValue] = [
                "iss": .string("https://appleid.apple.com"), "aud": .string(aud), "sub": .string(sub), "iat": .number(now), "exp": .number(now + 600),
                "email": .string("ada@privaterelay.appleid.com"), "email_verified": .string("true"),
            ]
            if let nonce { claims["nonce"] = .string(nonce) }
            return Secret(try await (key ?? appleKey).sign(claims, algorithm: .rs256, keyID: "apple-1"))
        }

        func issue(code: String, for sub: String) { lock.withLock { codes[code] = sub } }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { a, _ in a })
            switch request.url.absoluteString {
            case "https://appleid.apple.com/auth/keys":
                var jwk = appleKey.publicJWK ?? [:]
                jwk["kid"] = "apple-1"
                jwk["alg"] = "RS256"
                return try Self.json(["keys": .array([.object(jwk.mapValues(JSONValue.string))])])
            case "https://appleid.apple.com/auth/token":
                lock.withLock { tokenRequests.append(form) }
                guard Self.clientSecretIsGood(form["client_secret"]), form["client_id"] == AppleIDSignInTests.bundleID else {
                    return try Self.json(["error": .string("invalid_client")], status: 400)
                }
                guard form["redirect_uri"] == nil, form["code_verifier"] == nil, let code = form["code"],
                    let sub = lock.withLock({ codes.removeValue(forKey: code) })
                else { return try Self.json(["error": .string("invalid_grant")], status: 400) }
                var answer: [String: JSONValue] = [
                    "access_token": .string("a0.\(code)"), "token_type": .string("Bearer"), "expires_in": .number(3600), "refresh_token": .string("r0.\(code)"),
                ]
                if !withoutIDToken { answer["id_token"] = .string(try await identityToken(sub: sub, nonce: nil).value) }
                return try Self.json(answer)
            case "https://appleid.apple.com/auth/revoke":
                guard Self.clientSecretIsGood(form["client_secret"]), let token = form["token"] else {
                    return try Self.json(["error": .string("invalid_client")], status: 400)
                }
                lock.withLock { revoked.append(token) }
                return TransportResponse(status: 200, headers: [:], body: Data())
            default:
                return TransportResponse(status: 404, headers: [:], body: Data())
            }
        }

        /// Apple's client secret: an ES256 JWT, `iss` the team, `sub` the client id, `aud` Apple.
        static func clientSecretIsGood(_ secret: String?) -> Bool {
            guard let secret, let jws = try? CompactJWS(secret) else { return false }
            return jws.header["alg"]?.stringValue == "ES256" && jws.header["kid"]?.stringValue == "KEY123ABCD"
                && jws.claims["iss"]?.stringValue == "ABCDE12345" && jws.claims["sub"]?.stringValue == AppleIDSignInTests.bundleID
                && jws.claims["aud"]?.stringValue == "https://appleid.apple.com"
        }

        static func json(_ members: [String: JSONValue], status: Int = 200) throws -> TransportResponse {
            TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(JSONValue.object(members).description.utf8))
        }
    }

    /// The sheet, scripted: it signs an identity token with the nonce it was given (or what `forge` makes of it).
    struct ScriptedSheet: AppleIDAuthorizer {
        let apple: StandIn
        var forge: @Sendable (StandIn, String) async throws -> Secret? = { apple, nonce in try await apple.identityToken(nonce: nonce) }
        var credentialUser = AppleIDSignInTests.user
        var state = AppleIDCredential.State.authorized
        let asked = Locked<[(scopes: [AppleIDCredential.Scope], nonce: String, user: String?)]>([])

        func authorize(scopes: [AppleIDCredential.Scope], nonce: String) async throws -> AppleIDCredential {
            try await authorize(scopes: scopes, nonce: nonce, user: nil)
        }

        func authorize(scopes: [AppleIDCredential.Scope], nonce: String, user: String?) async throws -> AppleIDCredential {
            asked.withLock { $0.append((scopes, nonce, user)) }
            let code = "c-\(UUID().uuidString)"
            apple.issue(code: code, for: credentialUser)
            var name = PersonNameComponents()
            name.givenName = "Ada"
            return AppleIDCredential(
                user: credentialUser, identityToken: try await forge(apple, nonce), authorizationCode: Secret(code),
                email: "ada@privaterelay.appleid.com", fullName: name)
        }

        func credentialState(forUser user: String) async throws -> AppleIDCredential.State { state }
    }

    static func apple(_ standIn: StandIn) throws -> Provider {
        try ProviderRegistry.load(includeUserDirectory: false).descriptor(named: "apple").resolve(["team_id": "ABCDE12345"])
    }

    static func signIn(_ sheet: ScriptedSheet) throws -> AppleIDSignIn {
        AppleIDSignIn(
            provider: try apple(sheet.apple), authorizer: sheet, bundleIdentifier: bundleID, environment: OAuthEnvironment(transport: sheet.apple))
    }

    /// The app's server: the app's bundle identifier is the client, its Sign in with Apple key signs the secret.
    static func server(_ apple: StandIn, store: any TokenStore) throws -> OAuth {
        OAuth(
            OAuth.Configuration(
                clients: [
                    "apple": ClientSettings(
                        clientID: bundleID, variables: ["team_id": "ABCDE12345"],
                        signingKey: try ClientConfiguration.SigningKey(pem: apple.clientKey.pem, keyID: "KEY123ABCD"))
                ], store: store, environment: OAuthEnvironment(transport: apple)))
    }

    @Test func theSheetsCredentialIsVerifiedRedeemedByTheServerAndRevokedWhenTheAccountGoes() async throws {
        let apple = try StandIn()
        let sheet = ScriptedSheet(apple: apple)
        let result = try await Self.signIn(sheet).signIn()
        let asked = try #require(sheet.asked.current.first)
        #expect(asked.scopes == [.fullName, .email])
        #expect(asked.nonce == AppleIDSignIn.hash(result.nonce).value && asked.nonce.count == 64, "Apple got the SHA-256 of the nonce")
        #expect(result.user == Self.user && result.idToken.subject == Self.user && result.fullName?.givenName == "Ada")

        let store = InMemoryTokenStore()
        let oauth = try Self.server(apple, store: store)
        let code = try #require(result.authorizationCode)
        let sub = try await AppleSignInDocExamples.redeem(
            oauth: oauth, code: code.value, identityToken: result.identityToken.value, nonce: result.nonce.value)
        #expect(sub == Self.user, "stored under the verified sub, not a value the app sent")
        let session = try #require(await store.load(SessionKey(providerID: "apple", account: sub)))
        #expect(session.tokens.refreshToken?.value == "r0.\(code.value)")
        await #expect(throws: AuthorizationServerError.self, "a code is redeemed once") {
            try await oauth.redeemPlatformCode(code, identityToken: result.identityToken, nonce: result.nonce, issuedTo: "apple")
        }

        let deletion = try await oauth.deleteAccount("apple", account: result.user)
        #expect(deletion.revokedEverywhere && deletion.removed.count == 1)
        #expect(apple.revoked.first == "r0.\(code.value)", "the refresh token is revoked first, with the generated secret")
        #expect(await store.load(SessionKey(providerID: "apple", account: result.user)) == nil)
    }

    /// Each check of the identity token, seen failing: another key, another nonce, another app, another user than the
    /// credential's, none at all.
    @Test func anIdentityTokenThatFailsAnyCheckIsRefused() async throws {
        let apple = try StandIn()
        let stranger = try JWSPrivateKey.generate(.rsa).key
        let cases: [(String, ScriptedSheet, IDTokenError.Code)] = [
            ("another key", ScriptedSheet(apple: apple, forge: { try await $0.identityToken(nonce: $1, key: stranger) }), .badSignature),
            ("another nonce", ScriptedSheet(apple: apple, forge: { apple, _ in try await apple.identityToken(nonce: String(repeating: "0", count: 64)) }), .nonceMismatch),
            ("no nonce", ScriptedSheet(apple: apple, forge: { apple, _ in try await apple.identityToken(nonce: nil) }), .nonceMissing),
            ("another app", ScriptedSheet(apple: apple, forge: { try await $0.identityToken(aud: "com.example.other", nonce: $1) }), .audienceMismatch),
            ("another user", ScriptedSheet(apple: apple, credentialUser: "000999.other.0001"), .subjectMismatch),
            ("none", ScriptedSheet(apple: apple, forge: { _, _ in nil }), .missing),
        ]
        for (name, sheet, code) in cases {
            let error = try await #require(throws: AppleIDSignIn.UnverifiedCredential.self, "\(name)") { try await Self.signIn(sheet).signIn() }
            #expect((error.reason as? IDTokenError)?.code == code, "\(name): \(error)")
            #expect(error.fullName?.givenName == "Ada" && error.email == "ada@privaterelay.appleid.com", "\(name): what Apple gives once is kept")
        }
    }

    /// Apple's keys out of reach right after the sheet (no network yet): the name and e-mail Apple gives once come
    /// with the error, the app keeps them, and the same answer verifies once the network is back.
    @Test func whatAppleGivesOnceSurvivesACheckThatFailsOnTheDevice() async throws {
        let apple = try StandIn()
        let offline = Offline(apple)
        let sheet = ScriptedSheet(apple: apple)
        let profiles = AppleSignInDocExamples.Profiles()
        let device = AppleIDSignIn(
            provider: try Self.apple(apple), authorizer: sheet, bundleIdentifier: Self.bundleID, environment: OAuthEnvironment(transport: offline))
        let (verified, unverified) = try await AppleSignInDocExamples.signInWithApple(apple: device, profiles: profiles)
        let failure = try #require(unverified)
        #expect(verified == nil && "\(failure.reason)".contains("cannot fetch the JWKS"), "\(failure.reason)")
        #expect(profiles.name(of: Self.user)?.givenName == "Ada" && profiles.email(of: Self.user) == "ada@privaterelay.appleid.com")
        #expect(failure.credential.authorizationCode != nil && failure.request.hashedNonce == sheet.asked.current.first?.nonce)
        #expect(!"\(failure)".contains(failure.credential.identityToken?.value ?? "-"), "no token in the error's text")

        offline.online = true
        let result = try await device.verify(failure.credential, of: failure.request)
        #expect(result.user == Self.user && result.fullName?.givenName == "Ada" && result.nonce == failure.request.nonce)
        // Another request's nonce is not this answer's.
        let other = try await #require(throws: AppleIDSignIn.UnverifiedCredential.self) {
            try await device.verify(failure.credential, of: AppleIDSignIn.Request())
        }
        #expect((other.reason as? IDTokenError)?.code == .nonceMismatch)
    }

    /// A transport that is offline until told otherwise.
    final class Offline: HTTPTransport, @unchecked Sendable {
        let apple: StandIn
        var online = false
        init(_ apple: StandIn) { self.apple = apple }
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard online else { throw TransportError(.unreachable, url: request.url, message: "offline") }
            return try await apple.send(request)
        }
    }

    /// The server checks the identity token before it sends the code anywhere: one from another sign-in (its nonce
    /// not the one the app sent) is refused with nothing sent to the token endpoint.
    @Test func theServerRefusesACodeWhoseIdentityTokenIsNotThisSignInsBeforeSendingIt() async throws {
        let apple = try StandIn()
        let result = try await Self.signIn(ScriptedSheet(apple: apple)).signIn()
        let oauth = try Self.server(apple, store: InMemoryTokenStore())
        let error = try await #require(throws: IDTokenError.self) {
            try await oauth.redeemPlatformCode(
                try #require(result.authorizationCode), identityToken: result.identityToken, nonce: Secret("another-nonce"), issuedTo: "apple")
        }
        #expect(error.code == .nonceMismatch)
        #expect(apple.tokenRequests.isEmpty)

        // The code is the credential: an answer that does not say whose it was is refused, and nothing is stored.
        apple.withoutIDToken = true
        let unsaid = try await #require(throws: IDTokenError.self) {
            try await oauth.redeemPlatformCode(
                try #require(result.authorizationCode), identityToken: result.identityToken, nonce: result.nonce, issuedTo: "apple")
        }
        #expect(unsaid.code == .missing)
        #expect(try await oauth.store.load(SessionKey(providerID: "apple", account: Self.user)) == nil)
    }

    /// Each credential state as Apple says it, and what the guide's code does with it: only revoked and not found sign
    /// the user out; a transferred user is signed in again naming the identifier kept (the team-transfer migration).
    @Test func theCredentialStateIsExposedAndATransferredUserIsMigratedNotSignedOut() async throws {
        let apple = try StandIn()
        let states: [AppleIDCredential.State] = [.authorized, .revoked, .notFound, .transferred, .unknown(7)]
        for state in states {
            let sheet = ScriptedSheet(apple: apple, state: state)
            var signedOut = false
            var migrated: AppleIDSignIn.Result?
            try await AppleSignInDocExamples.checkCredentialState(
                apple: try Self.signIn(sheet), userID: Self.user, signOutLocally: { signedOut = true }, migrate: { migrated = $0 })
            #expect(try await Self.signIn(sheet).credentialState(forUser: Self.user) == state)
            #expect(signedOut == (state == .revoked || state == .notFound), "\(state)")
            #expect((migrated != nil) == (state == .transferred), "\(state)")
            if state == .transferred {
                let asked = try #require(sheet.asked.current.first)
                #expect(asked.user == Self.user && asked.scopes.isEmpty, "the request names the user to migrate")
            }
        }
    }

    /// An authorizer written before `user:` existed cannot name a user: it says so instead of signing in someone else.
    @Test func anAuthorizerThatCannotNameTheUserSaysSo() async throws {
        struct Plain: AppleIDAuthorizer {
            func authorize(scopes: [AppleIDCredential.Scope], nonce: String) async throws -> AppleIDCredential {
                AppleIDCredential(user: "u", identityToken: nil, authorizationCode: nil)
            }
            func credentialState(forUser user: String) async throws -> AppleIDCredential.State { .authorized }
        }
        let error = try await #require(throws: FlowError.self) { try await Plain().authorize(scopes: [], nonce: "n", user: "u") }
        #expect(error.message.contains("ASAuthorizationAppleIDRequest.user"))
        #expect(try await Plain().authorize(scopes: [], nonce: "n", user: nil).user == "u")
    }

    /// What the glue hands over: the tokens as UTF-8 text (bytes that are not are no token), the user's cancel in the
    /// authorization error domain as `FlowError` `cancelled`, any other error as it was.
    @Test func theSheetsPartsAreReadAsAppleDocumentsThem() {
        let credential = AppleIDCredential(
            user: "u", identityToken: Data("eyJ.a.b".utf8), authorizationCode: Data([0xFF, 0xFE]), email: nil, fullName: nil)
        #expect(credential.identityToken?.value == "eyJ.a.b" && credential.authorizationCode == nil)
        let domain = "com.apple.AuthenticationServices.AuthorizationError"
        let cancelled = AppleIDCredential.failure(NSError(domain: domain, code: 1001), domain: domain, cancelled: 1001)
        #expect((cancelled as? FlowError)?.code == .cancelled)
        let failed = AppleIDCredential.failure(NSError(domain: domain, code: 1004), domain: domain, cancelled: 1001)
        #expect((failed as NSError).code == 1004 && !(failed is FlowError))
    }
}
