#if Hummingbird && Postgres && Prometheus
// A web app with "Sign in with …" for every provider it enables, on Hummingbird.
//
//   swift run WebSignInExample --origin http://localhost:8080 --port 8080 \
//       --providers-dir Tests/OAuthFlowTests/Fixtures/providers \
//       --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var django.port=8000 \
//       --api django=opaque --api-scope read
//
// Options (each may repeat where it names a provider):
//   --origin URL          the origin the browser uses (default http://localhost:PORT, https with --tls-cert)
//   --port N              listen on 127.0.0.1:N (default 8080)
//   --tls-cert PEM        serve https with this certificate chain …
//   --tls-key PEM         … and this private key
//   --providers-dir DIR   descriptors besides the bundled ones
//   --client ID=CLIENT    enable provider ID with client id CLIENT
//   --secret ID=ENV       the client secret of ID is in environment variable ENV
//   --signing-key ID=PEM  the private key ID's client signs with (private_key_jwt, or a generated client secret)
//   --key-id ID=KID       that key's Key ID (the JWT header's kid)
//   --var ID.NAME=VALUE   a descriptor variable of ID
//   --sessions-dir DIR    where signed-in sessions' tokens are stored (default: a new temporary directory)
//                         (in PostgreSQL instead when OAUTHFLOW_EXAMPLE_PG_HOST is set: ExampleSessionStore.swift)
//   --api ID[=opaque]     GET /api/me accepts ID's access tokens; =opaque introspects them with ID's client
//   --api-scope SCOPE     a scope GET /api/me requires
// The options are parsed by ExampleOptions (Examples/Shared), which the Vapor example shares.
// The sealing key comes from OAUTHFLOW_EXAMPLE_KEY (32 bytes, base64); without it a fresh
// key is made at start, which is fine for one instance.
// The app, the API's key refresher and the PostgreSQL store run in one ServiceGroup: SIGTERM or SIGINT stops
// the app first (its requests, and the refreshes they started, finish), then the key refresher, then the store
// (the refreshes it has not saved yet are saved), then the process ends.
// GET /metrics answers what OAuthFlow counted, in Prometheus' text format (swift-prometheus; Docs/operations.md).
import ExampleSupport
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTLS
import Logging
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowPostgres
import OAuthFlowWeb
import Prometheus
import ServiceLifecycle

/// A request context with the user's session and, on the API's routes, the access token's principal.
struct AppContext: SessionRequestContext, AccessRequestContext {
    var coreContext: CoreRequestContextStorage
    let sessions: SessionContext<SignedInUser>
    var accessPrincipal: ProtectedResource.Principal?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        sessions = .init()
    }
}

/// An example page (ExamplePages, shared with the Vapor example) as a response.
func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
             body: .init(byteBuffer: ByteBuffer(string: page)))
}

let options = ExampleOptions.fromCommandLine(program: "WebSignInExample")
let origin = options.browserOrigin
let program = "WebSignInExample"
let keyring = orExit(program) { try exampleKeyring() }
let registry = orExit(program) { try ProviderRegistry.load(directories: options.providerDirectories) }
// What OAuthFlow counts goes to this registry, which GET /metrics shows; the library itself bootstraps nothing.
let prometheus = PrometheusCollectorRegistry()
let metrics = PrometheusMetricsFactory(registry: prometheus)
// The tokens of signed-in users stay on the server, in this store; the app's session holds the key.
let sessionsDirectory = options.sessionsDirectory
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("WebSignInExample-\(UUID().uuidString)")
let (sessions, postgres) = orExit(program) { try exampleSessionStore(directory: sessionsDirectory, keyring: keyring, metrics: metrics) }
let web = orExit(program) {
    try WebSignIn(registry: registry, enable: options.clients, origin: origin, keyring: keyring,
                  sessions: sessions, environment: OAuthEnvironment(logger: Logger(label: "oauthflow.web"), metrics: metrics))
}
let api = orExit(program) {
    try options.protectedResource(registry: registry, resource: origin,
                                  environment: OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 5), metrics: metrics))
}
/// The app calls its own API where it listens.
let apiURL = options.selfAPIURL

let router = Router(context: AppContext.self)
router.add(middleware: SessionMiddleware(storage: MemoryPersistDriver(), configuration: .init(
    sessionCookieParameters: .init(name: "example_session", secure: origin.scheme == "https", sameSite: .lax))))

router.get("/") { _, context -> Response in
    let (page, status) = await ExampleRoutes.home(context.sessions.session, web: web, hasAPI: api != nil, logger: context.logger) {
        context.sessions.clearSession()
    }
    return html(page, status: .init(code: status))
}

router.post("/resources/:index") { _, context -> Response in
    guard let user = context.sessions.session,
          let page = await ExampleRoutes.resource(context.parameters.get("index", as: Int.self), of: user, web: web, logger: context.logger,
                                                  forget: { context.sessions.clearSession() })
    else { return Response(status: .seeOther, headers: [.location: "/"]) }
    return html(page)
}

router.post("/api-call") { _, context -> Response in
    guard let user = context.sessions.session,
          let page = await ExampleRoutes.apiCall(apiURL, for: user, web: web, logger: context.logger, forget: { context.sessions.clearSession() })
    else { return Response(status: .seeOther, headers: [.location: "/"]) }
    return html(page)
}

extension Me: ResponseEncodable {}

// Prometheus scrapes this. The app listens on 127.0.0.1 only; a public app serves it on a port of its own, or behind
// authentication: the counts are no secret, but they are nobody else's business.
router.get("/metrics") { _, _ -> Response in
    Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(bytes: prometheus.emitToBuffer())))
}

if let api {
    router.addProtectedResourceMetadata(api)
    router.group("api").add(middleware: AccessTokenMiddleware(api, requiring: options.apiScopes)).get("me") { _, context -> Me in
        guard let principal = context.accessPrincipal else { throw HTTPError(.unauthorized) }
        return Me(principal)
    }
}

// The sign-in routes; the hook decides what a signed-in user is: here, a server-side session holding the stored session's key.
router.addSignInRoutes(web) { result, _, context in
    guard let key = result.session else { throw HTTPError(.internalServerError, message: "the sign-in was not stored") }
    context.sessions.createSession(SignedInUser(result, session: key))
    return Response(status: .seeOther, headers: [.location: result.returnTo])
}

// Sign-out revokes and forgets the stored session and ends the provider's; the hook clears the app's session.
router.addSignOutRoutes(web, currentSession: { _, context in context.sessions.session?.session }) { _, context in
    context.sessions.clearSession()
}

for line in registrationLines(web) { print(line) }
let configuration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: options.port))
var app: Application<RouterResponder<AppContext>>
if let tls = options.tls {
    let settings = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificateChain).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.privateKey, format: .pem)))
    app = Application(router: router, server: try .tls(.http1(), tlsConfiguration: settings), configuration: configuration)
} else {
    app = Application(router: router, configuration: configuration)
}
if let postgres {
    // The store's pool runs in the group by then: the table is made before the first request.
    app.beforeServerStarts { try await postgres.migrate() }
}
print("listening on 127.0.0.1:\(options.port), open \(origin.absoluteString)/")
// The store first: a group stops its services last to first, so the app's requests (and the refreshes
// they start) end before the store stops, and the store saves what is pending before it returns. The API's
// signing keys are fetched when the group starts and kept fresh, so that no request waits for a JWKS.
let services: [any Service] = (postgres.map { [$0] } ?? []) + (api.map { [KeySetRefresher($0)] } ?? []) + [app]
let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger))
try await group.run()
#endif
