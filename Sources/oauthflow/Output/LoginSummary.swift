#if CLI
import Foundation
import OAuthFlow

/// What `login` reports: never a token.
struct LoginSummary: Encodable {
    let provider: String
    let account: String
    let scopes: [String]
    let expiresAt: String?
    let refreshToken: Bool
    let idTokenSubject: String?
    /// Whether the engine verified the ID token (it does for every OpenID Connect sign-in).
    let idTokenVerified: Bool
    /// Who signed in, mapped by the descriptor's `profile` from the ID token (no extra round trip).
    let profile: UserProfile?
    let resources: [Resource]
    let storedAt: String

    enum CodingKeys: String, CodingKey {
        case provider, account, scopes, expiresAt = "expires_at", refreshToken = "refresh_token"
        case idTokenSubject = "id_token_subject", idTokenVerified = "id_token_verified", profile, resources, storedAt = "stored_at"
    }

    /// Built from what the sign-in verified: the ID token's subject and the profile come from its
    /// checked claims, never from decoding the stored token again.
    init(result: SignInResult, provider: Provider, path: String) {
        let session = result.session
        self.provider = provider.id
        account = session.key.account
        scopes = session.tokens.scopes
        expiresAt = session.tokens.expiresAt.map { ISO8601DateFormatter().string(from: $0) }
        refreshToken = session.tokens.refreshToken != nil
        idTokenSubject = result.idToken?.subject
        idTokenVerified = result.idToken != nil
        profile = result.profile
        resources = provider.resources.resources(granted: session.tokens.scopes)
        storedAt = path
    }

    /// Prints the summary of a sign-in on stdout: as JSON with `--json`, else as text.
    static func print(_ result: SignInResult, provider: Provider, path: String, json: Bool) {
        let summary = LoginSummary(result: result, provider: provider, path: path)
        if json, let text = try? Output.json(summary) {
            Output.stdoutExact(text)
        } else {
            Output.stdout(summary.text)
        }
    }

    var text: String {
        // Every value may come from the server or a descriptor: each is escaped so it stays on its line.
        let show = TerminalText.escaped
        var lines = ["Signed in to \(show(provider))\(account == "default" ? "" : " as account \(show(account))")."]
        lines.append("  scopes: \(show(scopes.joined(separator: " ")))")
        lines.append("  expires: \(expiresAt ?? "not stated")")
        lines.append("  refresh token: \(refreshToken ? "issued" : "not issued")")
        if let idTokenSubject { lines.append("  ID token subject: \(show(idTokenSubject))\(idTokenVerified ? " (verified)" : " (not verified)")") }
        if let profile, profile.name != nil || profile.email != nil {
            let email = profile.email.map { " <\(show($0))>\(profile.emailVerified == true ? " (verified)" : "")" } ?? ""
            lines.append("  user: \(show(profile.name ?? profile.subject ?? ""))\(email)")
        }
        for resource in resources { lines.append("  resource: \(show(resource.title)) \(show(resource.url.absoluteString))") }
        lines.append("  stored: \(show(storedAt))")
        return lines.joined(separator: "\n") + "\n"
    }
}
#endif
