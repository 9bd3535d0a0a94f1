// A web app with "Sign in with …" for every provider it enables, on Hummingbird.
//
//   swift run WebSignInExample --origin http://localhost:8080 --port 8080 \
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
import Hummingbird
import HummingbirdAuth
import Logging
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowWeb

/// What the app keeps about a signed-in user (server side; the browser holds only a session id): who it is,
/// and the key of the stored session whose tokens WebSignIn keeps and refreshes.
struct UserSession: Codable, Sendable {
    var key: SessionKey
    var providerName: String
    var profile: UserProfile
    var claims: [String: String]
    var resources: [Resource]
}

/// A request context with the user's session and, on the API's routes, the access token's principal.
struct AppContext: SessionRequestContext, AccessRequestContext {
    var coreContext: CoreRequestContextStorage
    let sessions: SessionContext<UserSession>
    var accessPrincipal: AccessPrincipal?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        sessions = .init()
    }
}

struct Options {
    var origin: URL?
    var port = 8080
    var providerDirectories: [URL] = []
    var clients: [String: WebSignIn.Client] = [:]
    /// Where the signed-in sessions' tokens are kept (a FileTokenStore); nil for a new temporary directory.
    var sessionsDirectory: URL?
    /// The providers whose access tokens the app's own API accepts, and whether each one's are opaque.
    var api: [(id: String, opaque: Bool)] = []
    /// The scopes `GET /api/me` requires.
    var apiScopes: [String] = []

    init(_ arguments: [String]) throws {
        var secrets: [String: String] = [:]
        var variables: [String: [String: String]] = [:]
        var clientIDs: [String: String] = [:]
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func pair(_ text: String, _ separator: Character) throws -> (String, String) {
            guard let at = text.firstIndex(of: separator) else { throw UsageError("expected NAME\(separator)VALUE, got \(text)") }
            return (String(text[..<at]), String(text[text.index(after: at)...]))
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--origin": origin = URL(string: try value())
            case "--port": port = Int(try value()) ?? 0
            case "--providers-dir": providerDirectories.append(URL(fileURLWithPath: try value()))
            case "--sessions-dir": sessionsDirectory = URL(fileURLWithPath: try value(), isDirectory: true)
            case "--client": let (id, client) = try pair(try value(), "="); clientIDs[id] = client
            case "--secret": let (id, variable) = try pair(try value(), "="); secrets[id] = variable
            case "--var":
                let (name, text) = try pair(try value(), "=")
                let (id, variable) = try pair(name, ".")
                variables[id, default: [:]][variable] = text
            case "--api":
                let text = try value()
                let (id, kind) = text.contains("=") ? try pair(text, "=") : (text, "")
                guard kind.isEmpty || kind == "opaque" else { throw UsageError("--api takes ID or ID=opaque, got \(text)") }
                api.append((id, kind == "opaque"))
            case "--api-scope": apiScopes.append(try value())
            default: throw UsageError("unknown option \(arguments[index])")
            }
            index += 1
        }
        guard !clientIDs.isEmpty else { throw UsageError("enable at least one provider with --client ID=CLIENT_ID") }
        for (id, clientID) in clientIDs {
            var secret: Secret?
            if let variable = secrets[id] {
                guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else {
                    throw UsageError("the client secret of \(id) should be in $\(variable), which is not set")
                }
                secret = Secret(text)
            }
            clients[id] = WebSignIn.Client(clientID: clientID, clientSecret: secret, variables: variables[id] ?? [:])
        }
        for (id, _) in api where clients[id] == nil {
            throw UsageError("--api \(id) names a provider not enabled with --client")
        }
    }

    /// The app's own API: it trusts the `--api` providers; opaque tokens are introspected with the app's own client.
    func protectedResource(registry: ProviderRegistry, resource: URL) throws -> ProtectedResource? {
        guard !api.isEmpty else { return nil }
        var providers: [Provider] = []
        var introspectionClients: [String: ClientConfiguration] = [:]
        for (id, opaque) in api {
            guard let client = clients[id] else { continue }
            var descriptor = try registry.provider(named: id)
            if opaque {
                descriptor.accessTokens.format = .opaque
                introspectionClients[id] = .service(clientID: client.clientID, clientSecret: client.clientSecret)
            }
            providers.append(try descriptor.resolve(client.variables))
        }
        return try ProtectedResource(
            providers: providers, settings: .init(resource: resource, scopesSupported: apiScopes, resourceName: "OAuthFlow example API"),
            introspectionClients: introspectionClients)
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let escape = WebHTML.escape

func html(_ title: String, _ body: String, status: HTTPResponse.Status = .ok) -> Response {
    let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font:16px system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
        table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
        .button,button{display:inline-block;margin:.25rem 0;padding:.5rem 1rem;border:1px solid #334;border-radius:.4rem;
        background:#f4f4fa;color:#112;text-decoration:none;font:inherit;cursor:pointer}</style></head>
        <body>\(body)</body></html>
        """
    return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(string: page)))
}

/// Claims as display text, nested values as JSON.
func displayClaims(_ claims: [String: JSONValue]) -> [String: String] {
    claims.mapValues { value in
        switch value {
        case let .string(text): text
        case let .bool(flag): String(flag)
        case let .number(number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? ""
        }
    }
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("WebSignInExample: \(error)\n".utf8))
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
// The tokens of signed-in users stay on the server, in this store; the app's session holds the key.
let sessionsDirectory = options.sessionsDirectory
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("WebSignInExample-\(UUID().uuidString)")
let web = try WebSignIn(registry: registry, enable: options.clients, origin: origin, keyring: keyring,
                        sessions: FileTokenStore(directory: sessionsDirectory), logger: Logger(label: "oauthflow.web"))
let api = try options.protectedResource(registry: registry, resource: origin)
/// The app calls its own API where it listens.
let apiURL = URL(string: "http://127.0.0.1:\(options.port)/api/me")!

let router = Router(context: AppContext.self)
router.add(middleware: SessionMiddleware(storage: MemoryPersistDriver(), configuration: .init(
    sessionCookieParameters: .init(name: "example_session", secure: origin.scheme == "https", sameSite: .lax))))

func signedOutPage(note: String? = nil) -> Response {
    let buttons = web.providerIDs.compactMap { id -> String? in
        guard let provider = web.provider(id) else { return nil }
        return "<p><a class=\"button\" href=\"\(escape(web.basePath))/\(escape(id))\">Sign in with \(escape(provider.displayName))</a></p>"
    }
    let notice = note.map { "<p id=\"notice\">\(escape($0))</p>" } ?? ""
    return html("OAuthFlow example", "<h1>OAuthFlow web sign-in</h1>\(notice)<p id=\"signed-out\">You are not signed in.</p>\(buttons.joined())")
}

router.get("/") { _, context -> Response in
    guard let user = context.sessions.session else { return signedOutPage() }
    // The stored session may have ended elsewhere (the provider's logout, on any instance sharing the store).
    do {
        guard try await web.isSignedIn(user.key) else {
            context.sessions.clearSession()
            return signedOutPage(note: "Your session has ended.")
        }
    } catch {
        context.logger.error("the session store cannot be read", metadata: ["reason": "\(error)"])
        return html("Unavailable", "<h1>Sign-in is unavailable</h1><p>Try again in a moment.</p>", status: .serviceUnavailable)
    }
    let rows = user.claims.sorted { $0.key < $1.key }.map { "<tr><th>\(escape($0.key))</th><td>\(escape($0.value))</td></tr>" }
    let resources = user.resources.enumerated().map { index, resource in
        "<form method=\"post\" action=\"/resources/\(index)\"><button>Open \(escape(resource.title))</button></form>"
    }
    let apiButton = api == nil ? "" : "<h2>This app's API</h2><form method=\"post\" action=\"/api-call\"><button id=\"call-api\">Call GET /api/me</button></form>"
    return html("Signed in", """
        <h1>OAuthFlow web sign-in</h1>
        <p id="signed-in">Signed in with \(escape(user.providerName)) as <strong id="name">\(escape(user.profile.name ?? user.profile.subject ?? "?"))</strong></p>
        <h2>Profile</h2>
        <table id="profile">
        <tr><th>subject</th><td>\(escape(user.profile.subject ?? ""))</td></tr>
        <tr><th>name</th><td>\(escape(user.profile.name ?? ""))</td></tr>
        <tr><th>email</th><td>\(escape(user.profile.email ?? ""))\(user.profile.emailVerified.map { $0 ? " (verified)" : " (not verified)" } ?? "")</td></tr>
        <tr><th>picture</th><td>\(escape(user.profile.picture ?? ""))</td></tr>
        </table>
        <h2>Claims</h2><table id="claims">\(rows.joined())</table>
        <h2>Resources your scopes open</h2>\(resources.isEmpty ? "<p>None.</p>" : resources.joined())
        \(apiButton)
        <form method="post" action="\(escape(web.signOutPath))"><button id="sign-out">Sign out</button></form>
        """)
}

/// The signed-in user's access token, refreshed first when it has expired; nil (and the session cleared) once it has ended.
func accessToken(_ context: AppContext, _ user: UserSession) async -> Secret? {
    do {
        return try await web.accessToken(for: user.key)
    } catch {
        context.logger.info("the stored session has ended", metadata: ["reason": "\(error)"])
        context.sessions.clearSession()
        return nil
    }
}

/// A GET with the user's access token: the status and the first 16 KiB of the answer.
func call(_ url: URL, with token: Secret) async -> String {
    do {
        let response = try await DefaultHTTPTransport().send(OAuthFlow.HTTPRequest(
            method: .get, url: url, headers: ["Authorization": "Bearer \(token.value)", "Accept": "application/json"]))
        return "HTTP \(response.status)\n" + String(decoding: response.body.prefix(16_384), as: UTF8.self)
    } catch {
        return "\(error)"
    }
}

func answerPage(_ title: String, id: String, _ answer: String) -> Response {
    html(title, "<h1>\(escape(title))</h1><pre id=\"\(escape(id))\">\(escape(answer))</pre><p><a href=\"/\">Back</a></p>")
}

router.post("/resources/:index") { _, context -> Response in
    guard let user = context.sessions.session, let index = context.parameters.get("index", as: Int.self),
          user.resources.indices.contains(index), let token = await accessToken(context, user) else {
        return Response(status: .seeOther, headers: [.location: "/"])
    }
    let resource = user.resources[index]
    return answerPage(resource.title, id: "resource", await call(resource.url, with: token))
}

router.post("/api-call") { _, context -> Response in
    guard let user = context.sessions.session, let token = await accessToken(context, user) else {
        return Response(status: .seeOther, headers: [.location: "/"])
    }
    return answerPage("GET /api/me", id: "api-answer", await call(apiURL, with: token))
}

// The app's own API: who the access token speaks for, as the middleware checked it.
struct Me: ResponseEncodable {
    var provider: String
    var subject: String?
    var username: String?
    var clientID: String?
    var scopes: [String]
    var checkedBy: String
}

if let api {
    router.addProtectedResourceMetadata(api)
    router.group("api").add(middleware: AccessTokenMiddleware(api, requiring: options.apiScopes)).get("me") { _, context -> Me in
        guard let principal = context.accessPrincipal else { throw HTTPError(.unauthorized) }
        return Me(provider: principal.providerID, subject: principal.subject, username: principal.claims["username"]?.stringValue,
                  clientID: principal.clientID, scopes: principal.scopes, checkedBy: principal.source.rawValue)
    }
}

// The sign-in routes; the hook decides what a signed-in user is: here, a server-side session holding the stored session's key.
router.addSignInRoutes(web) { result, _, context in
    guard let key = result.session else { throw HTTPError(.internalServerError, message: "the sign-in was not stored") }
    context.sessions.setSession(UserSession(
        key: key, providerName: result.displayName, profile: result.profile, claims: displayClaims(result.claims), resources: result.resources))
    return Response(status: .seeOther, headers: [.location: result.returnTo])
}

// Sign-out revokes and forgets the stored session and ends the provider's; the hook clears the app's session.
router.addSignOutRoutes(web, currentSession: { _, context in context.sessions.session?.key }) { _, context in
    context.sessions.clearSession()
}

for id in web.providerIDs {
    print("\(id): register the redirect URI \(web.redirectURI(for: id)?.absoluteString ?? "-")")
    print("\(id): register the post-logout redirect URI \(web.postLogoutRedirectURI(for: id)?.absoluteString ?? "-")")
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: options.port)))
print("listening on 127.0.0.1:\(options.port), open \(origin.absoluteString)/")
try await app.runService()
