import Crypto
import Foundation
import OAuthFlow

/// A sign-in between its start and its callback, sealed into a cookie so that any
/// instance behind a load balancer can finish what another started.
///
/// - The cookie's name is derived from the flow's `state` (`oauthflow_flow_` and 16 hex
///   digits of its SHA-256), so flows in several tabs do not overwrite each other and
///   the callback finds its own cookie from the `state` the provider hands back.
/// - Its value is `v1.KEYID.SEALED`: AES-256-GCM (`SessionKeyring`) over the pending
///   authorization (verifier, state, nonce, redirect URI), the provider id, the return
///   path and an expiry, with the cookie's name authenticated alongside. A value
///   edited, cut, sealed with an unknown key or moved to another cookie name does not open.
struct PendingSignIn: Codable, Sendable {
    var pending: PendingAuthorization
    var providerID: String
    var returnTo: String
    var expiresAt: Date

    static func cookieName(forState state: String) -> String {
        SealedCookie.name(prefix: "oauthflow_flow_", state: state)
    }

    func seal(with keyring: SessionKeyring) throws -> (name: String, value: String) {
        let name = Self.cookieName(forState: pending.state.value)
        guard let value = try SealedCookie.seal(self, name: name, purpose: "pending", keyring: keyring) else {
            throw WebSignInError(
                .configuration,
                "the pending sign-in for \(providerID) would need a cookie over \(SealedCookie.maximumLength) bytes (browsers keep 4 KiB); shorten the authorization request's extra parameters"
            )
        }
        return (name, value)
    }

    /// Opens a cookie value sealed under `name`.
    ///
    /// - Throws: ``WebSignInError`` `tampered` when it does not open or decode.
    static func open(_ value: String, name: String, keyring: SessionKeyring) throws -> PendingSignIn {
        try SealedCookie.open(value, name: name, purpose: "pending", keyring: keyring, what: "pending sign-in")
    }
}

/// A record sealed into a cookie value: `v1.KEYID.SEALED`, AES-256-GCM (`SessionKeyring`) over its JSON, with
/// its purpose and the cookie's name authenticated alongside. A value edited, cut, sealed with an unknown key,
/// or moved to another cookie name or purpose does not open.
enum SealedCookie {
    static let version = "v1"
    /// Cookies have a 4 KiB limit in browsers; the sealed records are far below.
    static let maximumLength = 3800

    /// `prefix` and 16 hex digits of the SHA-256 of `state`: flows in several tabs do not overwrite each
    /// other, and a return finds its own cookie from the `state` the provider hands back.
    static func name(prefix: String, state: String) -> String {
        prefix + Hexadecimal.lowercase(SHA256.hash(data: Data(state.utf8)).prefix(8))
    }

    private static func context(_ purpose: String, _ name: String) -> Data {
        Data("oauthflow-\(purpose)-v1\u{0}\(name)".utf8)
    }

    /// The sealed value; nil when it would be longer than ``maximumLength`` (a browser would drop it silently).
    static func seal<Record: Encodable>(_ record: Record, name: String, purpose: String, keyring: SessionKeyring) throws -> String? {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let (keyID, sealed) = try keyring.seal(try encoder.encode(record), context: context(purpose, name))
        let value = "\(version).\(keyID).\(Base64URL.encode(sealed))"
        return value.utf8.count <= maximumLength ? value : nil
    }

    /// - Throws: ``WebSignInError`` `tampered` when `value` does not open or decode.
    static func open<Record: Decodable>(
        _ value: String, name: String, purpose: String, keyring: SessionKeyring, what: String
    ) throws -> Record {
        let parts = value.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard value.utf8.count <= maximumLength, parts.count == 3, parts[0] == Substring(version),
            let sealed = Base64URL.decode(String(parts[2]))
        else {
            throw WebSignInError(.tampered, "the \(what) cookie \(name) is not one this server wrote")
        }
        let plaintext: Data
        do {
            plaintext = try keyring.open(sealed, keyID: String(parts[1]), context: context(purpose, name))
        } catch {
            throw WebSignInError(.tampered, "the \(what) cookie \(name) \(error)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let opened = try? decoder.decode(Record.self, from: plaintext) else {
            throw WebSignInError(.tampered, "the \(what) cookie \(name) opened but holds no \(what)")
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
