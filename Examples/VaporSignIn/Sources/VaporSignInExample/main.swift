// A web app with "Sign in with …" for every provider it enables, on Vapor: the same app as the
// Hummingbird example (Examples/WebSignIn), with the same options, pages and element ids.
//
//   swift run VaporSignInExample --origin http://localhost:8080 --port 8080 \
//       --providers-dir Tests/OAuthFlowTests/Fixtures/providers \
//       --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var django.port=8000 \
//       --api django=opaque --api-scope read
//
// Options (each may repeat where it names a provider):
//   --origin URL          the origin the browser uses (default http://localhost:PORT)
//   --port N              listen on 127.0.0.1:N (default 8080)
//   --providers-dir DIR   descriptors besides the bundled ones
//   --client ID=CLIENT    enable provider ID with client id CLIENT
//   --secret ID=ENV       the client secret of ID is in environment variable ENV
//   --var ID.NAME=VALUE   a descriptor variable of ID
//   --sessions-dir DIR    where signed-in sessions' tokens are stored (default: a new temporary directory)
//   --api ID[=opaque]     GET /api/me accepts ID's access tokens; =opaque introspects them with ID's client
//   --api-scope SCOPE     a scope GET /api/me requires
// The sealing key comes from OAUTHFLOW_EXAMPLE_KEY (32 bytes, base64); without it a fresh
// key is made at start, which is fine for one instance.
import Foundation
import Logging
import OAuthFlow
import OAuthFlowVapor
import OAuthFlowWeb
import Vapor

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("VaporSignInExample: \(error)\n\(Options.usage)\n".utf8))
    exit(64)
}
let origin = options.origin ?? URL(string: "http://localhost:\(options.port)")!
let keyring: SessionKeyring
if let text = ProcessInfo.processInfo.environment["OAUTHFLOW_EXAMPLE_KEY"] {
    keyring = try SessionKeyring(current: .init(id: "example", base64: text))
} else {
    keyring = try SessionKeyring(current: .init(id: "generated", key: .init(size: .bits256)))
}
let registry = try ProviderRegistry.load(directories: options.providerDirectories)
// The tokens of signed-in users stay on the server, in this store; the Vapor session holds the key.
let sessionsDirectory =
    options.sessionsDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("VaporSignInExample-\(UUID().uuidString)")
let web = try WebSignIn(
    registry: registry, enable: options.clients, origin: origin, keyring: keyring, sessions: FileTokenStore(directory: sessionsDirectory),
    logger: Logger(label: "oauthflow.web"))
let api = try options.protectedResource(registry: registry, resource: origin)
/// The app calls its own API where it listens.
let apiURL = URL(string: "http://127.0.0.1:\(options.port)/api/me")!

// Vapor reads no options of ours: it gets a command line of its own.
let app = try await Application.make(Environment(name: "production", arguments: ["VaporSignInExample", "serve"]))
app.http.server.configuration.hostname = "127.0.0.1"
app.http.server.configuration.port = options.port
app.sessions.use(.memory)
app.sessions.configuration = SessionsConfiguration(cookieName: "example_session") { id in
    HTTPCookies.Value(string: id.string, path: "/", isSecure: origin.scheme == "https", isHTTPOnly: true, sameSite: .lax)
}
app.middleware.use(app.sessions.middleware)

app.get { request async -> Response in
    guard let user = request.signedInUser else { return signedOutPage(web) }
    // The stored session may have ended elsewhere (the provider's logout, on any instance sharing the store).
    do {
        guard try await web.isSignedIn(user.session) else {
            request.session.destroy()
            return signedOutPage(web, note: "Your session has ended.")
        }
    } catch {
        request.logger.error("the session store cannot be read", metadata: ["reason": "\(error)"])
        return html("Unavailable", "<h1>Sign-in is unavailable</h1><p>Try again in a moment.</p>", status: .serviceUnavailable)
    }
    return signedInPage(user, web: web, hasAPI: api != nil)
}

/// The signed-in user's access token, refreshed first when it has expired; nil (and the session cleared) once it has ended.
func accessToken(_ request: Request, _ user: SignedInUser) async -> Secret? {
    do {
        return try await web.accessToken(for: user.session)
    } catch {
        request.logger.info("the stored session has ended", metadata: ["reason": "\(error)"])
        request.session.destroy()
        return nil
    }
}

/// A GET with the user's access token: the status and the first 16 KiB of the answer.
func call(_ url: URL, with token: Secret) async -> String {
    do {
        let response = try await DefaultHTTPTransport().send(
            OAuthFlow.HTTPRequest(method: .get, url: url, headers: ["Authorization": "Bearer \(token.value)", "Accept": "application/json"]))
        return "HTTP \(response.status)\n" + String(decoding: response.body.prefix(16_384), as: UTF8.self)
    } catch {
        return "\(error)"
    }
}

app.post("resources", ":index") { request async -> Response in
    guard let user = request.signedInUser, let index = request.parameters.get("index", as: Int.self), user.resources.indices.contains(index),
        let token = await accessToken(request, user)
    else {
        return request.redirect(to: "/")
    }
    let resource = user.resources[index]
    return answerPage(resource.title, id: "resource", await call(resource.url, with: token))
}

app.post("api-call") { request async -> Response in
    guard let user = request.signedInUser, let token = await accessToken(request, user) else { return request.redirect(to: "/") }
    return answerPage("GET /api/me", id: "api-answer", await call(apiURL, with: token))
}

// The app's own API: who the access token speaks for, as the middleware checked it.
struct Me: Content {
    var provider: String
    var subject: String?
    var username: String?
    var clientID: String?
    var scopes: [String]
    var checkedBy: String
}

if let api {
    app.addProtectedResourceMetadata(api)
    app.grouped(api.middleware(requiring: options.apiScopes)).get("api", "me") { request -> Me in
        let principal = try request.auth.require(AccessPrincipal.self)
        return Me(
            provider: principal.providerID, subject: principal.subject, username: principal.claims["username"]?.stringValue,
            clientID: principal.clientID, scopes: principal.scopes, checkedBy: principal.source.rawValue)
    }
}

// The sign-in routes; the hook decides what a signed-in user is: here, a Vapor session holding the stored session's key.
app.addSignInRoutes(web) { result, request in
    guard let session = result.session else { throw Abort(.internalServerError, reason: "the sign-in was not stored") }
    try request.keep(SignedInUser(result, session: session))
    return request.redirect(to: result.returnTo)
}

// Sign-out revokes and forgets the stored session and ends the provider's; the hook clears the Vapor session.
app.addSignOutRoutes(web, currentSession: { request in request.signedInUser?.session }) { request in
    request.session.destroy()
}

for id in web.providerIDs {
    print("\(id): register the redirect URI \(web.redirectURI(for: id)?.absoluteString ?? "-")")
    print("\(id): register the post-logout redirect URI \(web.postLogoutRedirectURI(for: id)?.absoluteString ?? "-")")
}
print("listening on 127.0.0.1:\(options.port), open \(origin.absoluteString)/")
do {
    try await app.execute()
} catch {
    app.logger.report(error: error)
    try? await app.asyncShutdown()
    exit(1)
}
try await app.asyncShutdown()
