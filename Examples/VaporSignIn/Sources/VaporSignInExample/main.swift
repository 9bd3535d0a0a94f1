#if Vapor
// A web app with "Sign in with …" for every provider it enables, on Vapor: the same app as the
// Hummingbird example (Examples/WebSignIn), with the same options, pages and element ids.
//
//   swift run VaporSignInExample --origin http://localhost:8080 --port 8080 \
//       --providers-dir Tests/OAuthFlowTests/Fixtures/providers \
//       --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var django.port=8000 \
//       --api django=opaque --api-scope read
//
// Options: those of the Hummingbird example (see its main.swift or README), parsed by the same
// ExampleOptions (Examples/Shared), which also draws both apps' pages.
// The sealing key comes from OAUTHFLOW_EXAMPLE_KEY (32 bytes, base64); without it a fresh
// key is made at start, which is fine for one instance.
import ExampleSupport
import Foundation
import Logging
import NIOSSL
import OAuthFlow
import OAuthFlowVapor
import OAuthFlowWeb
import Vapor

let options = ExampleOptions.fromCommandLine(program: "VaporSignInExample")
let origin = options.browserOrigin
let program = "VaporSignInExample"
let keyring = orExit(program) { try exampleKeyring() }
let registry = orExit(program) { try ProviderRegistry.load(directories: options.providerDirectories) }
// The tokens of signed-in users stay on the server, in this store; the Vapor session holds the key.
let sessionsDirectory =
    options.sessionsDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("VaporSignInExample-\(UUID().uuidString)")
let web = orExit(program) {
    try WebSignIn(registry: registry, enable: options.clients, origin: origin, keyring: keyring, sessions: FileTokenStore(directory: sessionsDirectory), environment: OAuthEnvironment(logger: Logger(label: "oauthflow.web")))
}
let api = orExit(program) { try options.protectedResource(registry: registry, resource: origin) }
/// The app calls its own API where it listens.
let apiURL = options.selfAPIURL

// Vapor reads no options of ours: it gets a command line of its own.
let app = try await Application.make(Environment(name: "production", arguments: ["VaporSignInExample", "serve"]))
app.http.server.configuration.hostname = "127.0.0.1"
app.http.server.configuration.port = options.port
if let tls = options.tls {
    app.http.server.configuration.tlsConfiguration = .makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificateChain).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.privateKey, format: .pem)))
}
app.sessions.use(.memory)
app.sessions.configuration = SessionsConfiguration(cookieName: "example_session") { id in
    HTTPCookies.Value(string: id.string, path: "/", isSecure: origin.scheme == "https", isHTTPOnly: true, sameSite: .lax)
}
app.middleware.use(app.sessions.middleware)

app.get { request async -> Response in
    let (page, status) = await ExampleRoutes.home(request.signedInUser, web: web, hasAPI: api != nil, logger: request.logger) {
        request.session.destroy()
    }
    return html(page, status: HTTPResponseStatus(statusCode: status))
}

app.post("resources", ":index") { request async -> Response in
    guard let user = request.signedInUser,
        let page = await ExampleRoutes.resource(
            request.parameters.get("index", as: Int.self), of: user, web: web, logger: request.logger, forget: { request.session.destroy() })
    else { return request.redirect(to: "/") }
    return html(page)
}

app.post("api-call") { request async -> Response in
    guard let user = request.signedInUser,
        let page = await ExampleRoutes.apiCall(apiURL, for: user, web: web, logger: request.logger, forget: { request.session.destroy() })
    else { return request.redirect(to: "/") }
    return html(page)
}

extension Me: Content {}

if let api {
    // The API's signing keys, fetched when the app boots and kept fresh until it shuts down, so that no request
    // waits for a JWKS (the Hummingbird example runs KeySetRefresher in its ServiceGroup instead).
    app.lifecycle.use(KeySetRefreshHandler(api))
    app.addProtectedResourceMetadata(api)
    app.grouped(api.middleware(requiring: options.apiScopes)).get("api", "me") { request -> Me in
        let principal = try request.auth.require(ProtectedResource.Principal.self)
        return Me(principal)
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

for line in registrationLines(web) { print(line) }
print("listening on 127.0.0.1:\(options.port), open \(origin.absoluteString)/")
// Vapor's serve command stops on SIGTERM or SIGINT after the requests under way (and the refreshes they started)
// finish; the key refresher stops with the app's shutdown.
do {
    try await app.execute()
} catch {
    app.logger.report(error: error)
    try? await app.asyncShutdown()
    exit(1)
}
try await app.asyncShutdown()
#endif
