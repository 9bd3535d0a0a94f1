import Foundation
import OAuthFlow
import OAuthFlowLoopback
import Testing

/// Docs/pushed-and-dpop.md's Swift lines, compiled here (DocExampleTests checks that each one appears in
/// this file); PushedAndDPoPEndToEndTests runs the same calls against the PAR and DPoP server.
struct PushedAndDPoPDocExamples {
    static let page = "Docs/pushed-and-dpop.md"

    func callingAPIs(manager: TokenManager) async throws {
        let response = try await manager.perform(TransportRequest(method: .get, url: URL(string: "https://api.example.com/me")!))
        let tokens = try await manager.validTokens()
        let answer = try await tokens.send(TransportRequest(method: .post, url: URL(string: "https://api.example.com/orders")!))
        _ = (response, answer)
    }

    func richAuthorizationRequests(oauth: OAuth) async throws {
        let payment = AuthorizationDetail(type: "payment_initiation", ["instructedAmount": .object(["currency": .string("EUR"), "amount": .string("10.00")])])
        let result = try await oauth.signIn(to: "open-bank", browser: SystemBrowser(environment: ProcessInfo.processInfo.environment), authorizationDetails: [payment])
        let granted = result.tokens.authorizationDetails ?? []
        let token = try await oauth.serviceTokens(for: "open-bank").accessToken(OAuthClient.ServiceTokenRequest(authorizationDetails: [payment]))
        _ = (granted, token)
    }

    func fapi2InCode(descriptor given: ProviderDescriptor, providers: URL) throws {
        let oauth = OAuth(OAuth.Configuration(providerDirectories: [providers], securityProfiles: ["fapi-bank": .fapi2]))
        let bank = try oauth.provider("fapi-bank")   // held to FAPI 2.0, or ProviderError security_profile
        var descriptor = given
        descriptor.securityProfile = .fapi2
        let provider = try descriptor.resolve()
        _ = (bank, provider)
    }

    func grantManagement(oauth: OAuth, browser: any BrowserOpener) async throws {
        let first = try await oauth.signIn(to: "fapi-bank", browser: browser, grantManagement: .create)
        guard let grantID = first.session.tokens.grantID else { return }
        try await oauth.signIn(to: "fapi-bank", browser: browser, grantManagement: .merge(grantID: grantID))
        let manager = try await oauth.session("fapi-bank")
        let grant = try await manager.grant()
        try await manager.revokeGrant()
        _ = (grant, try await manager.validTokens().grantID)
    }

    func fapi2Credentials(keyPEM: String, certificatePEM: String, certificateKeyPEM: String) throws {
        let key = try ClientConfiguration.SigningKey(pem: keyPEM, algorithm: .ps256, keyID: "bank-2026")
        let certificate = TLSClientIdentity(certificateChainPEM: certificatePEM, privateKeyPEM: Secret(certificateKeyPEM))
        let bank = ClientSettings(clientID: "bank-client", signingKey: key, tlsIdentity: certificate)
        _ = bank
    }

    func credentialHelpers(oauth: OAuth, environment: [String: String]) async throws {
        let session = try await oauth.bearerSession("corp", tool: "git", browser: SystemBrowser(environment: environment))
        _ = session
    }
}

/// Docs/pushed-and-dpop.md's FAPI 2.0 clients file entry: the keys it writes are the clients file's, and they name the
/// bank's key and certificate as the page says.
@Suite struct PushedAndDPoPClientsFileTests {
    @Test func theFAPIBanksEntryNamesItsKeyAndCertificate() throws {
        let blocks = try DocExampleTests.blocks(in: PushedAndDPoPDocExamples.page).filter {
            $0.language == "yaml" && $0.lines.first == "# ~/.config/oauthflow/clients.yaml"
        }
        let text = try #require(blocks.first, "the page shows no clients file").lines.joined(separator: "\n")
        let file = ClientsFile(text: text, url: URL(fileURLWithPath: "/doc/clients.yaml"))
        let entry = try #require(try file.entry(for: "fapi-bank"))
        #expect(entry.clientID == "bank-client" && entry.keyID == "bank-2026" && entry.signingAlg == "PS256")
        #expect(entry.privateKeyFile?.hasSuffix("fapi-bank.pem") == true && entry.certificateFile?.hasSuffix("fapi-bank.crt") == true)
    }
}
