import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing
@testable import OAuthFlow

/// Rich authorization requests (RFC 9396) on the client's side: what a host hands in, what goes out, what a token
/// answer brings back and how long the session keeps it; each hostile input refused with its reason.
@Suite struct AuthorizationDetailTests {
    static let payment = AuthorizationDetail(
        type: "payment_initiation",
        [
            "actions": .array([.string("initiate"), .string("status")]), "locations": .array([.string("https://bank.example/payments")]),
            "instructedAmount": .object(["currency": .string("EUR"), "amount": .string("123.50")]),
            "creditorAccount": .object(["iban": .string("DE02100100109307118603")]),
        ])
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    // MARK: - The list a host hands in

    /// RFC 9396 §2.1's example reads back as it was written, and goes out as compact JSON with its members sorted.
    @Test func aListReadsAndEncodesAsTheRFCShowsIt() throws {
        let text = #"""
            [{"type": "payment_initiation", "actions": ["initiate", "status"], "locations": ["https://bank.example/payments"],
              "instructedAmount": {"currency": "EUR", "amount": "123.50"}, "creditorAccount": {"iban": "DE02100100109307118603"}}]
            """#
        let details = try AuthorizationDetail.list(json: text)
        #expect(details == [Self.payment])
        #expect(details[0].actions == ["initiate", "status"])
        #expect(details[0].locations == ["https://bank.example/payments"])
        #expect(details[0]["instructedAmount"] == .object(["currency": .string("EUR"), "amount": .string("123.50")]))
        let encoded = AuthorizationDetail.encoded(details)
        #expect(encoded.hasPrefix(#"[{"actions":["initiate","status"],"creditorAccount":{"iban":"DE02100100109307118603"}"#), "\(encoded)")
        #expect(encoded.contains(#""locations":["https://bank.example/payments"]"#), "slashes unescaped: \(encoded)")
        #expect(try AuthorizationDetail.list(json: encoded) == details)
    }

    /// An account number is not for a log: the description names the type and the members only.
    @Test func theDescriptionNamesMembersNotValues() {
        let text = "\(Self.payment)"
        #expect(text == "payment_initiation (actions, creditorAccount, instructedAmount, locations)")
        #expect(!text.contains("DE02"))
    }

    static let hostile: [(String, String)] = [
        ("an object, not an array", #"{"type": "payment_initiation"}"#),
        ("a string", #""payment_initiation""#),
        ("not JSON", "type=payment_initiation"),
        ("an entry that is not an object", #"["payment_initiation"]"#),
        ("an entry without type", #"[{"actions": ["read"]}]"#),
        ("a type that is not a string", #"[{"type": 7}]"#),
        ("an empty type", #"[{"type": ""}]"#),
        ("a type with a control character", #"[{"type": "pay\nment"}]"#),
        ("a repeated member", #"[{"type": "account_information", "type": "payment_initiation"}]"#),
        ("a repeated member, escaped", #"[{"type": "a", "actions": [], "act\u0069ons": ["delete"]}]"#),
        ("33 entries", "[" + Array(repeating: #"{"type": "a"}"#, count: 33).joined(separator: ",") + "]"),
        ("more than 16 KiB", #"[{"type": "a", "note": ""# + String(repeating: "x", count: 17 * 1024) + #""}]"#),
        ("nesting 40 deep", #"[{"type": "a", "x": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}]"),
        ("nesting 10 deep", #"[{"type": "a", "x": "# + String(repeating: "[", count: 9) + String(repeating: "]", count: 9) + "}]"),
    ]

    @Test(arguments: hostile)
    func hostileListsAreRefusedWithTheirReason(_ name: String, _ text: String) {
        let error = #expect(throws: FlowError.self, "\(name)") { try AuthorizationDetail.list(json: text) }
        #expect(error?.code == .invalidAuthorizationDetails, "\(name)")
    }

    /// A list built in code meets the same limits before anything is sent.
    @Test func aListBuiltInCodeMeetsTheLimits() {
        let many = Array(repeating: AuthorizationDetail(type: "a"), count: 33)
        #expect(throws: FlowError.self) { try AuthorizationDetail.check(many) }
        #expect(throws: FlowError.self) { try AuthorizationDetail.check([AuthorizationDetail(type: "")]) }
        #expect(throws: FlowError.self) { try AuthorizationDetail.check([AuthorizationDetail(type: String(repeating: "t", count: 257))]) }
        #expect(throws: Never.self) { try AuthorizationDetail.check(Array(repeating: Self.payment, count: 32)) }
    }

    // MARK: - The token answer

    private func parse(_ body: String, previous: TokenSet? = nil) throws -> TokenSet {
        let response = TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        return try TokenResponseParser.tokenSet(
            from: response, format: .json, separator: " ", requestedScopes: [], previous: previous, now: now)
    }

    /// RFC 9396 §7: the answer's details are the grant; a refresh answer without any keeps them, one with new ones replaces them.
    @Test func theAnswersDetailsAreKeptThroughRefreshesUntilNewOnesCome() throws {
        let granted = try parse(
            #"{"access_token":"at","token_type":"Bearer","refresh_token":"rt","authorization_details":[{"type":"account_information","actions":["read"]}]}"#
        )
        let read = AuthorizationDetail(type: "account_information", ["actions": .array([.string("read")])])
        #expect(granted.authorizationDetails == [read])
        #expect(granted.additionalFields["authorization_details"] == nil, "kept once, typed")
        let refreshed = try parse(#"{"access_token":"at2","token_type":"Bearer"}"#, previous: granted)
        #expect(refreshed.authorizationDetails == [read])
        let narrowed = try parse(#"{"access_token":"at3","token_type":"Bearer","authorization_details":[{"type":"account_information"}]}"#, previous: refreshed)
        #expect(narrowed.authorizationDetails == [AuthorizationDetail(type: "account_information")])
        #expect(try parse(#"{"access_token":"at","token_type":"Bearer"}"#).authorizationDetails == nil)
        #expect(try parse(#"{"access_token":"at","token_type":"Bearer","authorization_details":null}"#).authorizationDetails == nil)
    }

    static let hostileAnswers: [(String, String)] = [
        ("an object", #"{"type":"account_information"}"#),
        ("an entry without type", #"[{"actions":["read"]}]"#),
        ("a string", #""[{\"type\":\"a\"}]""#),
        ("a repeated member", #"[{"type":"account_information","actions":["read"],"actions":["read","write"]}]"#),
        ("33 entries", "[" + Array(repeating: #"{"type":"a"}"#, count: 33).joined(separator: ",") + "]"),
    ]

    /// Details the client cannot read are not a grant it can rely on: the answer is refused, saying why.
    @Test(arguments: hostileAnswers)
    func anAnswerWithUnreadableDetailsIsRefused(_ name: String, _ details: String) {
        let error = #expect(throws: FlowError.self, "\(name)") {
            try parse(#"{"access_token":"at","token_type":"Bearer","authorization_details":"# + details + "}")
        }
        #expect(error?.code == .invalidTokenResponse, "\(name)")
        // A repeated member is refused by the reader of the whole answer, before the details are read.
        #expect(error?.message.contains(name == "a repeated member" ? "twice" : "authorization") == true, "\(name): \(error?.message ?? "")")
    }

    // MARK: - The stored session

    /// The store format: a session written before details were kept reads as having none; one with details reads them back.
    @Test func storedSessionsWithAndWithoutDetailsReadBack() throws {
        var tokens = TokenSet(
            accessToken: Secret("at"), tokenType: "bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: ["openid"], issuedAt: now)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let old = try encoder.encode(tokens)
        #expect(!String(decoding: old, as: UTF8.self).contains("authorizationDetails"))
        #expect(try JSONDecoder().decode(TokenSet.self, from: old).authorizationDetails == nil)
        tokens.authorizationDetails = [Self.payment]
        let new = try encoder.encode(tokens)
        #expect(try JSONDecoder().decode(TokenSet.self, from: new) == tokens)
        let session = StoredSession(
            key: SessionKey(providerID: "bank"), variables: [:], clientID: "app", redirectURI: nil, tokens: tokens, updatedAt: now)
        #expect(try StoredSession.decoded(from: try session.encoded()).tokens.authorizationDetails == [Self.payment])
    }

    // MARK: - Declared types

    static let bankYAML = """
        schema_version: 1
        id: bank
        display_name: Bank
        protocol: oauth2
        issuer: https://bank.example
        endpoints:
          authorization: https://bank.example/authorize
          token: https://bank.example/token
          pushed_authorization: https://bank.example/par
        authorization:
          pushed: always
          details_types: [payment_initiation, account_information]
        grant_types: [authorization_code, refresh_token, client_credentials]
        client_auth:
          methods: [client_secret_basic, none]

        """

    static func bank(_ text: String = bankYAML) throws -> Provider {
        try #require(DescriptorDocument.parse(Data(text.utf8), path: "bank.yaml").descriptor).resolve()
    }

    @Test func theDescriptorsTypesReachThePolicy() throws {
        #expect(try Self.bank().policy.authorizationDetailsTypes == ["payment_initiation", "account_information"])
        let none = Self.bankYAML.replacingOccurrences(of: "  details_types: [payment_initiation, account_information]\n", with: "")
        #expect(try Self.bank(none).policy.authorizationDetailsTypes == nil)
    }

    @Test(arguments: ["[]", "[payment_initiation, payment_initiation]", "[\"account information\"]"])
    func malformedTypeListsAreRefusedAtResolution(_ list: String) throws {
        let text = Self.bankYAML.replacingOccurrences(of: "[payment_initiation, account_information]", with: list)
        let descriptor = try #require(DescriptorDocument.parse(Data(text.utf8), path: "bank.yaml").descriptor)
        let error = #expect(throws: ProviderError.self) { try descriptor.resolve() }
        #expect(error?.message.contains("authorization.details_types") == true, "\(error?.message ?? "")")
    }

    /// A type the descriptor does not declare is refused before anything is sent: no pushed request, no token request.
    @Test func anUndeclaredTypeIsRefusedBeforeAnythingIsSent() async throws {
        let transport = RecordingTransport(CannedTransport(status: 500, body: "{}"))
        let environment = OAuthEnvironment(transport: transport)
        var configuration = ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1:8765/callback"))
        configuration.authorizationDetails = [Self.payment, AuthorizationDetail(type: "loan_application")]
        let client = OAuthClient(provider: try Self.bank(), configuration: configuration, environment: environment)
        let error = await #expect(throws: FlowError.self) { _ = try await client.startAuthorization() }
        #expect(error?.code == .invalidAuthorizationDetails)
        #expect(error?.message.contains("`loan_application`") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("payment_initiation, account_information") == true)
        let service = OAuthClient(
            provider: try Self.bank(), configuration: .service(clientID: "svc", clientSecret: Secret("s")), environment: environment)
        await #expect(throws: FlowError.self) {
            _ = try await service.clientCredentialsToken(.init(authorizationDetails: [AuthorizationDetail(type: "loan_application")]))
        }
        #expect(transport.requests.isEmpty)
    }

    /// Without a pushed request the details ride in the URL; one too long for a browser is refused with the way out.
    @Test func detailsTooLongForTheURLAskForAPushedRequest() throws {
        let text = Self.bankYAML.replacingOccurrences(of: "  pushed: always\n", with: "  pushed: never\n")
        var configuration = ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1:8765/callback"))
        configuration.authorizationDetails = [Self.payment]
        let pending = try PendingAuthorization.start(provider: try Self.bank(text), client: configuration)
        let sent = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "authorization_details" })
        #expect(try AuthorizationDetail.list(json: sent.value ?? "") == [Self.payment])
        configuration.authorizationDetails = Array(
            repeating: AuthorizationDetail(type: "account_information", ["note": .string(String(repeating: "n", count: 400))]), count: 20)
        let error = #expect(throws: FlowError.self) { try PendingAuthorization.start(provider: try Self.bank(text), client: configuration) }
        #expect(error?.message.contains("authorization.pushed") == true, "\(error?.message ?? "")")
    }
}
