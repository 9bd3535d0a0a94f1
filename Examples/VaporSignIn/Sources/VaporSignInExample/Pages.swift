import Foundation
import OAuthFlowWeb
import Vapor

let escape = WebHTML.escape

/// A page of the example: the same markup and element ids as the Hummingbird example's.
func html(_ title: String, _ body: String, status: HTTPResponseStatus = .ok) -> Response {
    let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font:16px system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
        table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
        .button,button{display:inline-block;margin:.25rem 0;padding:.5rem 1rem;border:1px solid #334;border-radius:.4rem;
        background:#f4f4fa;color:#112;text-decoration:none;font:inherit;cursor:pointer}</style></head>
        <body>\(body)</body></html>
        """
    return Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: .init(string: page))
}

/// The home page of a visitor: one button per provider.
func signedOutPage(_ web: WebSignIn, note: String? = nil) -> Response {
    let buttons = web.providerIDs.compactMap { id -> String? in
        guard let provider = web.provider(id) else { return nil }
        return "<p><a class=\"button\" href=\"\(escape(web.basePath))/\(escape(id))\">Sign in with \(escape(provider.displayName))</a></p>"
    }
    let notice = note.map { "<p id=\"notice\">\(escape($0))</p>" } ?? ""
    return html(
        "OAuthFlow example", "<h1>OAuthFlow web sign-in</h1>\(notice)<p id=\"signed-out\">You are not signed in.</p>\(buttons.joined())")
}

/// The home page of a signed-in user: profile, claims, resources, the API button and sign-out.
func signedInPage(_ user: SignedInUser, web: WebSignIn, hasAPI: Bool) -> Response {
    let rows = user.claims.sorted { $0.key < $1.key }.map { "<tr><th>\(escape($0.key))</th><td>\(escape($0.value))</td></tr>" }
    let resources = user.resources.enumerated().map { index, resource in
        "<form method=\"post\" action=\"/resources/\(index)\"><button>Open \(escape(resource.title))</button></form>"
    }
    let api = hasAPI ? "<h2>This app's API</h2><form method=\"post\" action=\"/api-call\"><button id=\"call-api\">Call GET /api/me</button></form>" : ""
    let verified = user.profile.emailVerified.map { $0 ? " (verified)" : " (not verified)" } ?? ""
    return html(
        "Signed in",
        """
        <h1>OAuthFlow web sign-in</h1>
        <p id="signed-in">Signed in with \(escape(user.providerName)) as <strong id="name">\(escape(user.profile.name ?? user.profile.subject ?? "?"))</strong></p>
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
func answerPage(_ title: String, id: String, _ answer: String) -> Response {
    html(title, "<h1>\(escape(title))</h1><pre id=\"\(escape(id))\">\(escape(answer))</pre><p><a href=\"/\">Back</a></p>")
}
