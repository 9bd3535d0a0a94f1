// The pages both web sign-in examples serve, as HTML text: each app wraps it in its framework's response.
import Foundation
import OAuthFlow
import OAuthFlowWeb

/// What an example keeps about a signed-in user in its server-side session (the browser holds only the
/// session cookie): who it is, and the key of the stored session whose tokens WebSignIn keeps and refreshes.
public struct SignedInUser: Codable, Sendable {
    public var session: SessionKey
    public var providerName: String
    public var profile: UserProfile
    public var claims: [String: String]
    public var resources: [Resource]
    /// The fields the provider sent only in this callback (Sign in with Apple's `user`, on the first consent).
    public var callbackFields: [String]

    public init(_ result: WebSignInResult, session: SessionKey) {
        self.session = session
        providerName = result.displayName
        profile = result.profile
        claims = ExamplePages.displayText(result.claims)
        resources = result.resources
        callbackFields = result.callback.keys.sorted()
    }
}

/// The examples' markup; the element ids are what the browser test (Tests/Browser) reads.
public enum ExamplePages {
    static let escape = WebHTML.escape

    /// A whole page.
    public static func page(_ title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font:16px system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
        table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
        .button,button{display:inline-block;margin:.25rem 0;padding:.5rem 1rem;border:1px solid #334;border-radius:.4rem;
        background:#f4f4fa;color:#112;text-decoration:none;font:inherit;cursor:pointer}</style></head>
        <body>\(body)</body></html>
        """
    }

    /// The home page of a visitor: one button per provider.
    public static func signedOut(_ web: WebSignIn, note: String? = nil) -> String {
        let buttons = web.providerIDs.compactMap { id -> String? in
            guard let provider = web.provider(id) else { return nil }
            return "<p><a class=\"button\" href=\"\(escape(web.basePath))/\(escape(id))\">Sign in with \(escape(provider.displayName))</a></p>"
        }
        let notice = note.map { "<p id=\"notice\">\(escape($0))</p>" } ?? ""
        return page(
            "OAuthFlow example", "<h1>OAuthFlow web sign-in</h1>\(notice)<p id=\"signed-out\">You are not signed in.</p>\(buttons.joined())")
    }

    /// The home page of a signed-in user: profile, claims, resources, the API button and sign-out.
    public static func signedIn(_ user: SignedInUser, web: WebSignIn, hasAPI: Bool) -> String {
        let rows = user.claims.sorted { $0.key < $1.key }.map { "<tr><th>\(escape($0.key))</th><td>\(escape($0.value))</td></tr>" }
        let resources = user.resources.enumerated().map { index, resource in
            "<form method=\"post\" action=\"/resources/\(index)\"><button>Open \(escape(resource.title))</button></form>"
        }
        let api =
            hasAPI ? "<h2>This app's API</h2><form method=\"post\" action=\"/api-call\"><button id=\"call-api\">Call GET /api/me</button></form>" : ""
        let verified = user.profile.emailVerified.map { $0 ? " (verified)" : " (not verified)" } ?? ""
        // A real app stores what comes only once (Apple sends the user's name on the first consent only).
        let once =
            user.callbackFields.isEmpty
            ? ""
            : "<p id=\"callback-fields\">Sent only at this sign-in, to be stored now: \(escape(user.callbackFields.joined(separator: ", ")))</p>"
        return page(
            "Signed in",
            """
            <h1>OAuthFlow web sign-in</h1>
            <p id="signed-in">Signed in with \(escape(user.providerName)) as <strong id="name">\(escape(user.profile.name ?? user.profile.subject ?? "?"))</strong></p>
            \(once)
            <h2>Profile</h2>
            <table id="profile">
            <tr><th>subject</th><td>\(escape(user.profile.subject ?? ""))</td></tr>
            <tr><th>name</th><td>\(escape(user.profile.name ?? ""))</td></tr>
            <tr><th>email</th><td>\(escape(user.profile.email ?? ""))\(verified)</td></tr>
            <tr><th>picture</th><td>\(escape(user.profile.picture ?? ""))</td></tr>
            </table>
            <h2>Claims</h2><table id="claims">\(rows.joined())</table>
            <h2>Resources your scopes open</h2>\(resources.isEmpty ? "<p>None.</p>" : resources.joined())
            \(api)
            <form method="post" action="\(escape(web.signOutPath))"><button id="sign-out">Sign out</button></form>
            """)
    }

    /// The answer of a call made with the user's access token.
    public static func answer(_ title: String, id: String, _ answer: String) -> String {
        page(title, "<h1>\(escape(title))</h1><pre id=\"\(escape(id))\">\(escape(answer))</pre><p><a href=\"/\">Back</a></p>")
    }

    /// The page shown when the session store cannot be read.
    public static let unavailable = page("Unavailable", "<h1>Sign-in is unavailable</h1><p>Try again in a moment.</p>")

    /// Claims as display text, nested values as JSON.
    public static func displayText(_ claims: [String: JSONValue]) -> [String: String] {
        claims.mapValues { value in
            switch value {
            case let .string(text): text
            case let .bool(flag): String(flag)
            case let .number(number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            default: (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? ""
            }
        }
    }

    /// A GET with the user's access token: the status and the first 16 KiB of the answer.
    public static func call(_ url: URL, with token: Secret) async -> String {
        do {
            let response = try await OAuthEnvironment().transport.send(
                TransportRequest(method: .get, url: url, headers: ["Authorization": "Bearer \(token.value)", "Accept": "application/json"]))
            return "HTTP \(response.status)\n" + String(decoding: response.body.prefix(16_384), as: UTF8.self)
        } catch {
            return "\(error)"
        }
    }
}
