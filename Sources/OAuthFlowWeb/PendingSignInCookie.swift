import Crypto
import Foundation
import OAuthFlow

/// A sign-in between its start and its callback, sealed into a cookie so that any
/// instance behind a load balancer can finish what another started.
///
/// - The cookie's name is derived from the flow's `state` (`oauthflow_flow_` and 16 hex
///   digits of its SHA-256), so flows in several tabs do not overwrite each other and
///   the callback finds its own cookie from the `state` the provider hands back.
/// - Its value is `v1.KEYID.SEALED`: AES-256-GCM (``SessionKeyring``) over the pending
///   authorization (verifier, state, nonce, redirect URI), the provider id, the return
///   path and an expiry, with the cookie's name authenticated alongside. A value
///   edited, cut, sealed with an unknown key or moved to another cookie name does not open.
struct PendingSignIn: Codable, Sendable {
    static let version = "v1"
    /// Cookies have a 4 KiB limit in browsers; the sealed pending authorization is far below.
    static let maximumCookieLength = 3800

    var pending: PendingAuthorization
    var providerID: String
    var returnTo: String
    var expiresAt: Date

    static func cookieName(forState state: String) -> String {
        let digest = SHA256.hash(data: Data(state.utf8))
        return "oauthflow_flow_" + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    private static func context(_ name: String) -> Data {
        Data("oauthflow-pending-v1\u{0}\(name)".utf8)
    }

    func seal(with keyring: SessionKeyring) throws -> (name: String, value: String) {
        let name = Self.cookieName(forState: pending.state.value)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let (keyID, sealed) = try keyring.seal(try encoder.encode(self), context: Self.context(name))
        let value = "\(Self.version).\(keyID).\(Base64URL.encode(sealed))"
        // A browser silently drops a cookie over 4 KiB, and the callback would then find none.
        guard value.utf8.count <= Self.maximumCookieLength else {
            throw WebSignInError(
                .configuration,
                "the pending sign-in for \(providerID) would need a \(value.utf8.count)-byte cookie (browsers keep 4 KiB); shorten the authorization request's extra parameters"
            )
        }
        return (name, value)
    }

    /// Opens a cookie value sealed under `name`.
    ///
    /// - Throws: ``WebSignInError`` `tampered` when it does not open or decode.
    static func open(_ value: String, name: String, keyring: SessionKeyring) throws -> PendingSignIn {
        let parts = value.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard value.utf8.count <= maximumCookieLength, parts.count == 3, parts[0] == Substring(version),
            let sealed = Base64URL.decode(String(parts[2]))
        else {
            throw WebSignInError(.tampered, "the pending sign-in cookie \(name) is not one this server wrote")
        }
        let plaintext: Data
        do {
            plaintext = try keyring.open(sealed, keyID: String(parts[1]), context: context(name))
        } catch {
            throw WebSignInError(.tampered, "the pending sign-in cookie \(name) \(error)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let opened = try? decoder.decode(PendingSignIn.self, from: plaintext) else {
            throw WebSignInError(.tampered, "the pending sign-in cookie \(name) opened but holds no pending sign-in")
        }
        return opened
    }
}

/// One `Set-Cookie` header value.
struct SetCookie {
    var name: String
    var value: String
    var path: String
    var maxAge: Int
    var secure: Bool
    var sameSite: String

    var header: String {
        var parts = ["\(name)=\(value)", "Path=\(path)", "Max-Age=\(maxAge)", "HttpOnly", "SameSite=\(sameSite)"]
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}

/// Reads a `Cookie` request header: `name=value; name2=value2`.
public enum CookieHeader {
    /// Every cookie in the headers, first value of a name winning.
    public static func parse(_ headers: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in headers {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                let name = String(trimmed[..<equals])
                var value = String(trimmed[trimmed.index(after: equals)...])
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                if cookies[name] == nil { cookies[name] = value }
            }
        }
        return cookies
    }
}
