// A web app with "Sign in with …" for every provider it enables, on Hummingbird.
//
//   swift run WebSignInExample --origin http://localhost:8080 --port 8080 \
//       --providers-dir ../../Tests/OAuthFlowTests/Fixtures/providers \
//       --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var django.port=8000
//
// Options (each may repeat where it names a provider):
//   --origin URL          the origin the browser uses (default http://localhost:PORT)
//   --port N              listen on 127.0.0.1:N (default 8080)
//   --providers-dir DIR   descriptors besides the bundled ones
//   --client ID=CLIENT    enable provider ID with client id CLIENT
//   --secret ID=ENV       the client secret of ID is in environment variable ENV
//   --var ID.NAME=VALUE   a descriptor variable of ID
// The sealing key comes from OAUTHFLOW_EXAMPLE_KEY (32 bytes, base64); without it a fresh
// key is made at start, which is fine for one instance.
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowWeb

/// What the app keeps about a signed-in user (server side; the browser holds only a session id).
struct UserSession: Codable, Sendable {
    var provider: String
    var providerName: String
    var profile: UserProfile
    var claims: [String: String]
    var accessToken: String
    var resources: [Resource]
}

typealias AppContext = BasicSessionRequestContext<UserSession, UserSession>

struct Options {
    var origin: URL?
    var port = 8080
    var providerDirectories: [URL] = []
    var clients: [String: WebSignIn.Client] = [:]

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
            case "--client": let (id, client) = try pair(try value(), "="); clientIDs[id] = client
            case "--secret": let (id, variable) = try pair(try value(), "="); secrets[id] = variable
            case "--var":
                let (name, text) = try pair(try value(), "=")
                let (id, variable) = try pair(name, ".")
                variables[id, default: [:]][variable] = text
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
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let escape = WebHTML.escape

func html(_ title: String, _ body: String) -> Response {
    let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font:16px system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
        table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
        .button,button{display:inline-block;margin:.25rem 0;padding:.5rem 1rem;border:1px solid #334;border-radius:.4rem;
        background:#f4f4fa;color:#112;text-decoration:none;font:inherit;cursor:pointer}</style></head>
        <body>\(body)</body></html>
        """
    return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
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
let web = try WebSignIn(registry: registry, enable: options.clients, origin: origin, keyring: keyring,
                        logger: Logger(label: "oauthflow.web"))

let router = Router(context: AppContext.self)
router.add(middleware: SessionMiddleware(storage: MemoryPersistDriver(), configuration: .init(
    sessionCookieParameters: .init(name: "example_session", secure: origin.scheme == "https", sameSite: .lax))))

router.get("/") { _, context -> Response in
    guard let user = context.sessions.session else {
        let buttons = web.providerIDs.compactMap { id -> String? in
            guard let provider = web.provider(id) else { return nil }
            return "<p><a class=\"button\" href=\"\(escape(web.basePath))/\(escape(id))\">Sign in with \(escape(provider.displayName))</a></p>"
        }
        return html("OAuthFlow example", "<h1>OAuthFlow web sign-in</h1><p id=\"signed-out\">You are not signed in.</p>\(buttons.joined())")
    }
    let rows = user.claims.sorted { $0.key < $1.key }.map { "<tr><th>\(escape($0.key))</th><td>\(escape($0.value))</td></tr>" }
    let resources = user.resources.enumerated().map { index, resource in
        "<form method=\"post\" action=\"/resources/\(index)\"><button>Open \(escape(resource.title))</button></form>"
    }
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
        <form method="post" action="/signout"><button id="sign-out">Sign out</button></form>
        """)
}

router.post("/resources/:index") { _, context -> Response in
    guard let user = context.sessions.session, let index = context.parameters.get("index", as: Int.self),
          user.resources.indices.contains(index) else {
        return Response(status: .seeOther, headers: [.location: "/"])
    }
    let resource = user.resources[index]
    let answer: String
    do {
        let response = try await DefaultHTTPTransport().send(OAuthFlow.HTTPRequest(
            method: .get, url: resource.url, headers: ["Authorization": "Bearer \(user.accessToken)", "Accept": "application/json"]))
        answer = "HTTP \(response.status)\n" + String(decoding: response.body.prefix(16_384), as: UTF8.self)
    } catch {
        answer = "\(error)"
    }
    return html(resource.title, "<h1>\(escape(resource.title))</h1><pre id=\"resource\">\(escape(answer))</pre><p><a href=\"/\">Back</a></p>")
}

router.post("/signout") { _, context -> Response in
    context.sessions.clearSession()
    return Response(status: .seeOther, headers: [.location: "/"])
}

// The sign-in routes; the hook decides what a signed-in user is: here, a server-side session.
router.addSignInRoutes(web) { result, _, context in
    context.sessions.setSession(UserSession(
        provider: result.providerID, providerName: result.displayName, profile: result.profile,
        claims: displayClaims(result.claims), accessToken: result.tokens.accessToken.value, resources: result.resources))
    return Response(status: .seeOther, headers: [.location: result.returnTo])
}

for id in web.providerIDs {
    print("\(id): register the redirect URI \(web.redirectURI(for: id)!.absoluteString)")
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: options.port)))
print("listening on 127.0.0.1:\(options.port), open \(origin.absoluteString)/")
try await app.runService()
