import Foundation
import OAuthFlow
import OAuthFlowApple

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Docs/apple.md's Swift lines for the keychain store, the URLRequest authorizer and Secure Enclave DPoP keys, compiled
/// here (DocExampleTests checks that each appears in this file). The Apple-only ones sit behind `#if canImport(…)`:
/// scripts/apple-typecheck.sh type-checks them against the shims.
enum AppleSessionsDocExamples {
    #if canImport(Security)
    static func keychain(google: ClientSettings) throws -> OAuth {
        let store = try KeychainTokenStore(accessGroup: "ABCDE12345.com.example.notes.shared")
        let oauth = OAuth(OAuth.Configuration(clients: ["google-ios": google], store: store))
        return oauth
    }

    /// Docs/apple.md, the keychain store's defaults spelt out, as every process of the app gives them.
    static func keychainSpelledOut() throws -> any TokenStore {
        let store = try KeychainTokenStore(service: "OAuthFlow", accessGroup: "ABCDE12345.com.example.notes.shared", accessibility: .afterFirstUnlockThisDeviceOnly)
        return store
    }
    #endif

    /// Docs/apple.md, the store for previews and tests.
    static func inMemory() -> OAuth {
        let oauth = OAuth(OAuth.Configuration(clients: ["google-ios": ClientSettings(clientID: "1234-abc.apps.googleusercontent.com")], store: InMemoryTokenStore()))
        return oauth
    }

    /// Docs/apple.md, the scope the Drive call needs.
    static func driveClient() -> ClientSettings {
        let google = ClientSettings(clientID: "1234-abc.apps.googleusercontent.com", scopes: ["openid", "email", "profile", "https://www.googleapis.com/auth/drive.metadata.readonly"])
        return google
    }

    static func authorizedRequest(oauth: OAuth) async throws -> Data {
        let authorizer = URLRequestAuthorizer(try await oauth.session("google-ios"))
        let (data, response) = try await authorizer.data(for: URLRequest(url: URL(string: "https://www.googleapis.com/drive/v3/files")!))
        return response.statusCode == 200 ? data : Data()
    }

    #if canImport(CryptoKit) && canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
    @MainActor static func secureEnclave(oauth: OAuth) async throws -> SignInResult {
        DPoPKey.register(SecureEnclaveDPoPKeys())
        let result = try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys()) {
            try await oauth.signIn(to: "notes", authenticator: SystemWebAuthenticator())
        }
        return result
    }
    #endif
}
