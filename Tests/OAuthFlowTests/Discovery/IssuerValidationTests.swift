import Foundation
import JWTKit
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Entra's multi-tenant issuer template and Google's two issuer spellings, with tokens really signed.
@Suite struct IssuerValidationTests {
    static let clientID = "client-1"
    static let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
    let now = Date(timeIntervalSince1970: 1_900_000_000)
    let key = ES256PrivateKey()

    struct Claims: JWTPayload {
        var iss: String
        var sub = "user-1"
        var aud = IssuerValidationTests.clientID
        var exp: Double = 1_900_000_600
        var iat: Double = 1_900_000_000
        var tid: String?
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private func bundled(_ id: String, _ variables: [String: String] = [:]) throws -> Provider {
        try ProviderRegistry.load().descriptor(named: id).resolve(variables)
    }

    private func validate(_ claims: Claims, provider: Provider) async throws -> IDTokenClaims {
        let parameters = try #require(key.parameters)
        let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","kid":"k1","alg":"ES256","use":"sig"}]}"#
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 200, body: Data(jwks.utf8)) }
        let validator = IDTokenValidator(provider: provider, clientID: Self.clientID, transport: transport, clock: FixedClock(date: now))
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: "k1"))
        let token = Secret(try await keys.sign(claims, kid: JWKIdentifier(string: "k1")))
        return try await validator.validate(token, nonce: nil, accessToken: nil)
    }

    private func rejected(_ claims: Claims, provider: Provider) async throws -> IDTokenError.Code {
        try await #require(throws: IDTokenError.self) { _ = try await validate(claims, provider: provider) }.code
    }

    @Test(arguments: ["common", "organizations", "consumers"])
    func entraMultiTenantAcceptsTheIssuerOfTheTokensOwnTenant(_ tenant: String) async throws {
        let microsoft = try bundled("microsoft", ["tenant": tenant])
        #expect(microsoft.issuer?.absoluteString == "https://login.microsoftonline.com/\(tenant)/v2.0")
        let claims = Claims(iss: "https://login.microsoftonline.com/\(Self.tenant)/v2.0", tid: Self.tenant)
        #expect(try await validate(claims, provider: microsoft).subject == "user-1")
    }

    @Test func entraSingleTenantByGUIDStillMatchesExactly() async throws {
        let microsoft = try bundled("microsoft", ["tenant": Self.tenant])
        let claims = Claims(iss: "https://login.microsoftonline.com/\(Self.tenant)/v2.0", tid: Self.tenant)
        #expect(try await validate(claims, provider: microsoft).issuer == claims.iss)
    }

    @Test(arguments: [
        // The issuer names another tenant than the token's own `tid`.
        Claims(iss: "https://login.microsoftonline.com/11111111-2222-3333-4444-555555555555/v2.0", tid: IssuerValidationTests.tenant),
        // No `tid` to build the issuer from.
        Claims(iss: "https://login.microsoftonline.com/\(IssuerValidationTests.tenant)/v2.0", tid: nil),
        // A `tid` that would bend the URL.
        Claims(iss: "https://login.microsoftonline.com/evil.example/x/v2.0", tid: "evil.example/x"),
        // The template's literal form, as the `common` discovery document writes it.
        Claims(iss: "https://login.microsoftonline.com/{tenantid}/v2.0", tid: "{tenantid}"),
        // Another host altogether.
        Claims(iss: "https://login.example.com/\(IssuerValidationTests.tenant)/v2.0", tid: IssuerValidationTests.tenant),
    ])
    func entraRejectsAnythingButTheTokensOwnTenant(_ claims: Claims) async throws {
        #expect(try await rejected(claims, provider: try bundled("microsoft")) == .issuerMismatch)
    }

    @Test(arguments: ["https://accounts.google.com", "accounts.google.com"])
    func googleAcceptsBothSpellings(_ issuer: String) async throws {
        #expect(try await validate(Claims(iss: issuer), provider: try bundled("google")).issuer == issuer)
    }

    @Test(arguments: ["https://accounts.google.com/", "accounts.google.com.evil.example", "https://accounts.google.com.evil.example", "http://accounts.google.com"])
    func googleRejectsLookAlikes(_ issuer: String) async throws {
        #expect(try await rejected(Claims(iss: issuer), provider: try bundled("google")) == .issuerMismatch)
    }

    @Test func discoveryDocumentsMayNameTheTemplateOrAnAlias() throws {
        let microsoft = try bundled("microsoft")
        #expect(microsoft.isDiscoveryIssuer("https://login.microsoftonline.com/{tenantid}/v2.0"))
        #expect(microsoft.isDiscoveryIssuer("https://login.microsoftonline.com/common/v2.0"))
        #expect(!microsoft.isDiscoveryIssuer("https://login.microsoftonline.com/{tenantid}/v1.0"))
        #expect(!microsoft.isDiscoveryIssuer("https://evil.example/{tenantid}/v2.0"))
        let google = try bundled("google")
        #expect(google.isDiscoveryIssuer("accounts.google.com"))
        #expect(!google.isDiscoveryIssuer("https://accounts.google.com/"))
    }

    @Test func callbacksAcceptTheAliasesToo() throws {
        let google = try bundled("google")
        #expect(google.isIssuer("accounts.google.com") && google.isIssuer("https://accounts.google.com"))
        #expect(!google.isIssuer("https://evil.example"))
    }
}
